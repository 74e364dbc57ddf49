/* The framing between the vnc module and a connection's process (wire.c):
 * messages arrive whole in order however the bytes are split, a descriptor
 * travels with its message, and what the process sends beyond its bounds
 * (a length over the cap, a field past the payload's end) is caught, not
 * read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backend/vnc/wire.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    for (int i = 0; i < 2; i++)
        fcntl(sv[i], F_SETFL, fcntl(sv[i], F_GETFL) | O_NONBLOCK);
}

static void messages_in_order_with_a_descriptor(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_UPDATE);
    vnc_wire_u32(&o, 7);
    vnc_wire_str(&o, "name", 4);
    assert_true(vnc_wire_send(sv[0], &o, -1, NULL));
    int fd = open("/dev/null", O_RDONLY);
    vnc_wire_begin(&o, VNC_WIRE_FRAMEBUFFER);
    vnc_wire_u32(&o, 640);
    assert_true(vnc_wire_send(sv[0], &o, fd, NULL));
    close(fd);

    struct vnc_wire_reader r;
    vnc_wire_reader_init(&r);
    assert_int_equal(vnc_wire_fill(sv[1], &r), 1);
    uint32_t type;
    struct vnc_wire_in in;
    bool bad;
    assert_true(vnc_wire_next(&r, &type, &in, &bad));
    assert_int_equal(type, VNC_WIRE_UPDATE);
    assert_int_equal(vnc_wire_get_u32(&in), 7);
    char *name = vnc_wire_get_cstr(&in);
    assert_string_equal(name, "name");
    free(name);
    assert_false(in.bad);
    assert_true(vnc_wire_next(&r, &type, &in, &bad));
    assert_int_equal(type, VNC_WIRE_FRAMEBUFFER);
    assert_int_equal(vnc_wire_get_u32(&in), 640);
    int got = vnc_wire_take_fd(&r);
    assert_true(got >= 0);
    close(got);
    assert_int_equal(vnc_wire_take_fd(&r), -1);
    assert_false(vnc_wire_next(&r, &type, &in, &bad));
    assert_false(bad);
    /* The writer's end closed: the end of the stream. */
    close(sv[0]);
    assert_int_equal(vnc_wire_fill(sv[1], &r), -1);
    vnc_wire_reader_finish(&r);
    close(sv[1]);
}

static void a_message_split_anywhere_arrives_whole(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_CUT_TEXT);
    vnc_wire_str(&o, "hello", 5);
    /* Written by hand a byte at a time: the reader waits for the rest. */
    uint32_t len = (uint32_t)(o.len - 8);
    memcpy(o.buf, &len, 4);
    struct vnc_wire_reader r;
    vnc_wire_reader_init(&r);
    uint32_t type;
    struct vnc_wire_in in;
    bool bad;
    for (size_t i = 0; i < o.len; i++) {
        assert_int_equal(write(sv[0], o.buf + i, 1), 1);
        assert_int_equal(vnc_wire_fill(sv[1], &r), 1);
        assert_int_equal(vnc_wire_next(&r, &type, &in, &bad), i == o.len - 1);
    }
    size_t n;
    const uint8_t *s = vnc_wire_get_str(&in, &n);
    assert_int_equal(n, 5);
    assert_memory_equal(s, "hello", 5);
    free(o.buf);
    vnc_wire_reader_finish(&r);
    close(sv[0]);
    close(sv[1]);
}

static void lengths_beyond_the_bounds_are_caught(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    /* A header announcing more than VNC_WIRE_MAX. */
    uint32_t head[2] = {VNC_WIRE_MAX + 1, VNC_WIRE_CUT_TEXT};
    assert_int_equal(write(sv[0], head, sizeof head), (ssize_t)sizeof head);
    struct vnc_wire_reader r;
    vnc_wire_reader_init(&r);
    assert_int_equal(vnc_wire_fill(sv[1], &r), 1);
    uint32_t type;
    struct vnc_wire_in in;
    bool bad;
    assert_false(vnc_wire_next(&r, &type, &in, &bad));
    assert_true(bad);
    vnc_wire_reader_finish(&r);

    /* A string longer than what is left of its payload, and a number past
     * the end: marked bad, read as empty and 0. */
    uint8_t payload[8];
    uint32_t big = 1000, four = 4;
    memcpy(payload, &big, 4);
    memcpy(payload + 4, &four, 4);
    struct vnc_wire_in p = {.p = payload, .left = sizeof payload};
    size_t n;
    vnc_wire_get_str(&p, &n);
    assert_true(p.bad);
    assert_int_equal(n, 0);
    assert_int_equal(vnc_wire_get_u32(&p), 0);
    struct vnc_wire_in q = {.p = payload + 4, .left = 4};
    assert_int_equal(vnc_wire_get_u32(&q), 4);
    assert_false(q.bad);
    assert_int_equal(vnc_wire_get_u32(&q), 0);
    assert_true(q.bad);
    close(sv[0]);
    close(sv[1]);
}

/* The other end: a big message, written without reading, then all of
 * what comes back read. */
struct peer {
    int sock;
    bool sent;
    size_t got;
};

static void *peer_run(void *ud)
{
    struct peer *p = ud;
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_CUT_TEXT);
    char *big = calloc(1, VNC_MAX_CUT_TEXT);
    vnc_wire_str(&o, big, VNC_MAX_CUT_TEXT);
    free(big);
    p->sent = vnc_wire_send(p->sock, &o, -1, NULL);
    struct vnc_wire_reader r;
    vnc_wire_reader_init(&r);
    uint32_t type;
    struct vnc_wire_in in;
    bool bad;
    while (!vnc_wire_next(&r, &type, &in, &bad) && !bad) {
        if (vnc_wire_fill(p->sock, &r) == 0)
            usleep(1000);
    }
    p->got = in.left;
    vnc_wire_reader_finish(&r);
    return NULL;
}

static void both_ends_writing_at_once_both_finish(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    struct peer peer = {.sock = sv[1]};
    pthread_t th;
    pthread_create(&th, NULL, peer_run, &peer);
    /* Each end's message is larger than the socket buffers: without
     * reading aside, each would wait for the other until the send's time
     * limit. */
    struct vnc_wire_out o;
    vnc_wire_begin(&o, VNC_WIRE_CUT_TEXT);
    char *big = calloc(1, VNC_MAX_CUT_TEXT);
    vnc_wire_str(&o, big, VNC_MAX_CUT_TEXT);
    free(big);
    struct vnc_wire_reader aside, r;
    vnc_wire_reader_init(&aside);
    vnc_wire_reader_init(&r);
    assert_true(vnc_wire_send(sv[0], &o, -1, &aside));
    pthread_join(th, NULL);
    assert_true(peer.sent);
    assert_int_equal(peer.got, 4 + VNC_MAX_CUT_TEXT);
    /* The peer's message, read aside, and any rest from the socket. */
    vnc_wire_reader_take(&r, &aside);
    uint32_t type;
    struct vnc_wire_in in;
    bool bad;
    while (!vnc_wire_next(&r, &type, &in, &bad) && !bad)
        assert_true(vnc_wire_fill(sv[0], &r) >= 0);
    assert_int_equal(type, VNC_WIRE_CUT_TEXT);
    assert_int_equal(in.left, 4 + VNC_MAX_CUT_TEXT);
    vnc_wire_reader_finish(&aside);
    vnc_wire_reader_finish(&r);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(messages_in_order_with_a_descriptor),
        cmocka_unit_test(a_message_split_anywhere_arrives_whole),
        cmocka_unit_test(lengths_beyond_the_bounds_are_caught),
        cmocka_unit_test(both_ends_writing_at_once_both_finish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

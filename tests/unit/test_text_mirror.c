/* Text mirrors of structured results (backend/mirror.h): what a client that
 * hands the model only the text content shows it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/mirror.h"
#include "core/strbuf.h"

static char *item(const char *json, const char *const *lead, const char *const *skip)
{
    json_t *v = json_loads(json, 0, NULL);
    assert_non_null(v);
    struct strbuf sb;
    strbuf_init(&sb);
    mirror_item(&sb, v, lead, skip);
    json_decref(v);
    return strbuf_steal(&sb);
}

static void items_read_as_one_line(void **state)
{
    (void)state;
    static const char *const lead[] = {"id", "title", NULL};
    static const char *const skip[] = {"age_ms", NULL};
    char *s =
        item("{\"id\": \"0x1a\", \"title\": \"Save as\", \"app\": \"gedit\", \"pid\": 1234567,"
             " \"focused\": true, \"hidden\": false, \"owner\": null, \"age_ms\": 5,"
             " \"bounds\": {\"x\": 0, \"y\": 10, \"width\": 300, \"height\": 120},"
             " \"command\": [\"sh\", \"-c\", \"echo hi\"], \"nested\": {\"a\": 1},"
             " \"scale\": 0.5, \"label\": \"two words\"}",
             lead, skip);
    assert_string_equal(s, "0x1a \"Save as\" app=gedit pid=1234567 focused (0,10 300x120) "
                           "command=[sh, -c, \"echo hi\"] scale=0.5 label=\"two words\"");
    free(s);
}

static void long_and_odd_text_is_quoted_and_cut(void **state)
{
    (void)state;
    static const char *const lead[] = {"id", NULL};
    char big[600];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    char *json = NULL;
    size_t n = strlen(big) + 64;
    json = malloc(n);
    snprintf(json, n, "{\"id\": \"x\", \"text\": \"%s\", \"q\": \"say \\\"hi\\\"\\nbye\"}", big);
    char *s = item(json, lead, NULL);
    free(json);
    assert_non_null(strstr(s, "…\""));
    assert_true(strlen(s) < 260);
    assert_non_null(strstr(s, "q=\"say \\\"hi\\\"\\nbye\""));
    free(s);
}

static void elements_show_value_states_and_bounds(void **state)
{
    (void)state;
    json_t *e =
        json_loads("{\"ref\": \"e6\", \"role\": \"slider\", \"name\": \"\", \"value\": \"30\","
                   " \"depth\": 4, \"parent\": \"e4\", \"source\": \"accessibility\","
                   " \"states\": [\"enabled\", \"showing\", \"focused\", \"checked\"],"
                   " \"bounds\": {\"x\": 12, \"y\": 43, \"width\": 276, \"height\": 34}}",
                   0, NULL);
    struct strbuf sb;
    strbuf_init(&sb);
    mirror_element(&sb, e);
    assert_string_equal(sb.data, "e6 slider \"\" value=30 [focused, checked] (12,43 276x34)");
    strbuf_finish(&sb);
    json_decref(e);

    /* OCR words: no ref, no role, their text and confidence. */
    e = json_loads("{\"text\": \"Hello\", \"confidence\": 91, \"source\": \"ocr\","
                   " \"bounds\": {\"x\": 1, \"y\": 2, \"width\": 3, \"height\": 4}}",
                   0, NULL);
    strbuf_init(&sb);
    mirror_element(&sb, e);
    assert_string_equal(sb.data, "text \"Hello\" confidence=91 (1,2 3x4)");
    strbuf_finish(&sb);
    json_decref(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(items_read_as_one_line),
        cmocka_unit_test(long_and_odd_text_is_quoted_and_cut),
        cmocka_unit_test(elements_show_value_states_and_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Answering a backend call: build the result and hand it to its owner. */
#include "backend/backend.h"
#include "core/pattern.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "session/session.h"

#include <stdarg.h>
#include <stdio.h>

const struct screen_guard screen_guard_none = {0};

void backend_call_done(struct backend_call *bc, json_t *data, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    struct backend_result r = {.data = data, .text = text};
    bc->finish(bc, &r);
}

void backend_call_done_content(struct backend_call *bc, json_t *data, json_t *content)
{
    const json_t *text = json_object_get(json_array_get(content, 0), "text");
    struct backend_result r = {.data = data,
                               .text = xstrndup(json_string_value(text), json_string_length(text)),
                               .content = content};
    bc->finish(bc, &r);
}

json_t *backend_text_content(const char *text, size_t len)
{
    /* As tool_call_done builds it, keys in the same order. */
    json_t *block = json_object();
    json_object_set_new_nocheck(block, "type", json_string_nocheck("text"));
    json_object_set_new_nocheck(block, "text", utf8_json_string(text, len));
    json_t *content = json_array();
    json_array_append_new(content, block);
    return content;
}

void backend_call_done_image(struct backend_call *bc, json_t *data, uint8_t *bytes, size_t len,
                             const char *mime, const char *caption)
{
    struct backend_result r = {.kind = BACKEND_RESULT_IMAGE,
                               .data = data,
                               .text = xstrdup(caption),
                               .bytes = bytes,
                               .len = len,
                               .mime = mime};
    bc->finish(bc, &r);
}

void backend_call_fail(struct backend_call *bc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    struct backend_result r = {.error = text, .code = ERROR_TOOL_FAILED};
    bc->finish(bc, &r);
}

void backend_call_fail_code(struct backend_call *bc, enum error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    struct backend_result r = {.error = text, .code = code};
    bc->finish(bc, &r);
}

void backend_call_done_link(struct backend_call *bc, json_t *data, const char *uri,
                            const char *name, const char *mime, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    struct backend_result r = {.kind = BACKEND_RESULT_LINK,
                               .data = data,
                               .text = text,
                               .uri = xstrdup(uri),
                               .name = name,
                               .mime = mime};
    bc->finish(bc, &r);
}

void backend_call_done_wait(struct backend_call *bc, bool matched, uint64_t elapsed_ms,
                            const char *source, const char *line, const char *reason)
{
    json_t *data = json_pack("{s:s, s:b, s:I, s:s}", "session", bc->session->id, "matched", matched,
                             "elapsed_ms", (json_int_t)elapsed_ms, "source", source);
    json_object_set_new(data, "line", line ? json_string(line) : json_null());
    if (reason)
        json_object_set_new(data, "reason", json_string(reason));
    backend_call_done(bc, data, "%s after %llu ms%s%s", matched ? "matched" : "not matched",
                      (unsigned long long)elapsed_ms, reason ? ": " : "", reason ? reason : "");
}

bool backend_wait_regex(struct backend_call *bc, const char *regex, struct pattern **re)
{
    char *err = NULL;
    *re = NULL;
    if (!regex || (*re = pattern_compile("regex", regex, false, &err)))
        return true;
    backend_call_fail_code(bc, ERROR_INVALID_ARGUMENT, "cannot wait: %s", err);
    free(err);
    return false;
}

struct backend_hold *backend_call_hold(struct backend_call *bc, json_t *fallback)
{
    if (!bc->hold) {
        json_decref(fallback);
        return NULL;
    }
    return bc->hold(bc, fallback);
}

void backend_hold_release(struct backend_hold *h, json_t *notes)
{
    if (h)
        h->release(h, notes);
    else
        json_decref(notes);
}

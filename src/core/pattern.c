#include "core/pattern.h"

#include "core/xmalloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

/* Nested groups: deep nesting is what makes compiling and matching costly. */
#define MAX_PARENS_NEST 32
/* Backtracking depth and memory one match may use. */
#define MAX_DEPTH   10000
#define MAX_HEAP_KB 8192

struct pattern {
    char *field;
    pcre2_code *code;
    pcre2_match_context *mctx;
    pcre2_match_data *md;
};

static char *error_text(int code)
{
    PCRE2_UCHAR buf[256];
    if (pcre2_get_error_message(code, buf, sizeof buf) < 0)
        return xasprintf("error %d", code);
    return xstrdup((const char *)buf);
}

/* Compile errors that mean "too big" rather than "wrong". */
static bool over_bound(int code)
{
    switch (code) {
    case PCRE2_ERROR_PATTERN_TOO_LARGE:
    case PCRE2_ERROR_PATTERN_TOO_COMPLICATED:
    case PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP:
    case PCRE2_ERROR_PATTERN_STRING_TOO_LONG:
    case PCRE2_ERROR_QUANTIFIER_TOO_BIG:
    case PCRE2_ERROR_TOO_MANY_CAPTURES:
        return true;
    default:
        return false;
    }
}

struct pattern *pattern_compile(const char *field, const char *src, bool ignore_case, char **err)
{
    *err = NULL;
    size_t len = strlen(src);
    if (len > PATTERN_MAX_LENGTH) {
        *err = xasprintf("argument \"%s\": regex too complex: %zu bytes long, at most %d allowed",
                         field, len, PATTERN_MAX_LENGTH);
        return NULL;
    }
    pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);
    pcre2_set_max_pattern_length(cctx, PATTERN_MAX_LENGTH);
    pcre2_set_parens_nest_limit(cctx, MAX_PARENS_NEST);
    /* \C could split a UTF-8 character and step outside the subject's
     * validity; invalid UTF-8 on screen simply never matches. */
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C |
                    PCRE2_NO_AUTO_CAPTURE | (ignore_case ? PCRE2_CASELESS : 0);
    int code;
    PCRE2_SIZE at;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, len, opts, &code, &at, cctx);
    pcre2_compile_context_free(cctx);
    if (!re) {
        char *why = error_text(code);
        if (over_bound(code))
            *err = xasprintf("argument \"%s\": regex too complex: %s (at most %d nested groups, "
                             "%d bytes compiled)",
                             field, why, MAX_PARENS_NEST, PATTERN_MAX_COMPILED);
        else
            *err = xasprintf("argument \"%s\": not a valid regular expression (PCRE2 syntax): "
                             "%s at offset %zu",
                             field, why, (size_t)at);
        free(why);
        return NULL;
    }
    size_t size = 0;
    pcre2_pattern_info(re, PCRE2_INFO_SIZE, &size);
    if (size > PATTERN_MAX_COMPILED) {
        pcre2_code_free(re);
        *err = xasprintf("argument \"%s\": regex too complex: compiles to %zu bytes, at most %d "
                         "allowed (large counted repeats such as {0,1000} multiply the size)",
                         field, size, PATTERN_MAX_COMPILED);
        return NULL;
    }
    struct pattern *p = xcalloc(1, sizeof *p);
    p->field = xstrdup(field);
    p->code = re;
    p->mctx = pcre2_match_context_create(NULL);
    pcre2_set_depth_limit(p->mctx, MAX_DEPTH);
    pcre2_set_heap_limit(p->mctx, MAX_HEAP_KB);
    p->md = pcre2_match_data_create(1, NULL);
    if (!p->mctx || !p->md)
        abort(); /* out of memory, as xmalloc would */
    return p;
}

int pattern_match(struct pattern *p, const char *s, size_t len, uint32_t match_limit, char **err)
{
    pcre2_set_match_limit(p->mctx, match_limit ? match_limit : PATTERN_MATCH_LIMIT);
    int rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, 0, 0, p->md, p->mctx);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH || rc == PCRE2_ERROR_PARTIAL)
        return 0;
    char *why = error_text(rc);
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
        *err = xasprintf("argument \"%s\": regex too complex: %s while matching a %zu-byte line "
                         "(each match may take %u steps); simplify the pattern, e.g. avoid "
                         "nested repeats such as (a+)+",
                         p->field, why, len, match_limit ? match_limit : PATTERN_MATCH_LIMIT);
    else
        *err = xasprintf("argument \"%s\": matching failed: %s", p->field, why);
    free(why);
    return -1;
}

char *pattern_first_line(const char *text, const char *needle, struct pattern *p,
                         uint32_t match_limit, char **err)
{
    for (const char *s = text; *s;) {
        size_t n = strcspn(s, "\n");
        int hit = 0;
        if (n && needle)
            hit = memmem(s, n, needle, strlen(needle)) != NULL;
        else if (n) {
            char *e = NULL;
            hit = pattern_match(p, s, n, match_limit, &e);
            if (hit < 0 && err) {
                *err = e;
                return NULL;
            }
            free(e);
        }
        if (hit > 0)
            return xstrndup(s, n);
        s += n + (s[n] == '\n');
    }
    return NULL;
}

void pattern_destroy(struct pattern *p)
{
    if (!p)
        return;
    pcre2_match_data_free(p->md);
    pcre2_match_context_free(p->mctx);
    pcre2_code_free(p->code);
    free(p->field);
    free(p);
}

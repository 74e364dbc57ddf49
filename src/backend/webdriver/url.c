/* URL checks and display (url.h). Deliberately small: libcurl parses for
 * real when the request is made; this decides what glovebox accepts and
 * what it shows. */
#include "backend/webdriver/url.h"

#include "core/strbuf.h"
#include "core/xmalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The start of the authority (after "scheme://"), or NULL. */
static const char *authority(const char *url)
{
    const char *p = url;
    if (!isalpha((unsigned char)*p))
        return NULL;
    while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
        p++;
    return strncmp(p, "://", 3) == 0 ? p + 3 : NULL;
}

char *wd_url_display(const char *url)
{
    const char *a = authority(url);
    if (!a)
        return xstrdup(url);
    size_t end = strcspn(a, "/?#");
    const char *at = memrchr(a, '@', end);
    if (!at)
        return xstrdup(url);
    return xasprintf("%.*s%s", (int)(a - url), url, at + 1);
}

bool wd_url_check_http(const char *field, const char *url, char **err)
{
    const char *a = authority(url);
    bool http = a && ((size_t)(a - url) == 7 && strncasecmp(url, "http://", 7) == 0);
    bool https = a && ((size_t)(a - url) == 8 && strncasecmp(url, "https://", 8) == 0);
    if (!http && !https) {
        char *shown = wd_url_display(url);
        size_t scheme = strcspn(shown, ":/?#");
        if (scheme > 0 && shown[scheme] == ':')
            *err = xasprintf("argument \"%s\": the scheme \"%.*s:\" is not allowed (expected an "
                             "http: or https: URL), got \"%.200s\"",
                             field, (int)scheme, shown, shown);
        else
            *err = xasprintf("argument \"%s\": expected an http: or https: URL, got \"%.200s\"",
                             field, shown);
        free(shown);
        return false;
    }
    const char *host = a;
    size_t end = strcspn(a, "/?#");
    const char *at = memrchr(a, '@', end);
    if (at)
        host = at + 1;
    if (strcspn(host, ":/?#") == 0) {
        char *shown = wd_url_display(url);
        *err = xasprintf("argument \"%s\": the URL has no host, got \"%.200s\"", field, shown);
        free(shown);
        return false;
    }
    if (strpbrk(url, " \t\r\n")) {
        *err = xasprintf("argument \"%s\": a URL may not contain spaces or line breaks", field);
        return false;
    }
    return true;
}

static void encode_part(struct strbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("-._~", c))
            strbuf_putc(b, (char)c);
        else
            strbuf_printf(b, "%%%02X", c);
    }
}

char *wd_url_with_env_credentials(const char *field, const char *url, const char *name, char **err)
{
    const char *a = authority(url);
    if (!a) {
        *err =
            xasprintf("argument \"%s\" needs \"url\": the endpoint the credentials are for", field);
        return NULL;
    }
    if (memchr(a, '@', strcspn(a, "/?#"))) {
        *err = xasprintf("argument \"%s\": the url has credentials already; give them in one "
                         "place",
                         field);
        return NULL;
    }
    const char *v = getenv(name);
    const char *colon = v ? strchr(v, ':') : NULL;
    if (!v || !colon || colon == v) {
        *err = xasprintf("argument \"%s\": the environment variable %s is %s (expected "
                         "user:password)",
                         field, name, v ? "not user:password" : "not set");
        return NULL;
    }
    struct strbuf b;
    strbuf_init(&b);
    strbuf_printf(&b, "%.*s", (int)(a - url), url);
    encode_part(&b, v, (size_t)(colon - v));
    strbuf_putc(&b, ':');
    encode_part(&b, colon + 1, strlen(colon + 1));
    strbuf_printf(&b, "@%s", a);
    return strbuf_steal(&b);
}

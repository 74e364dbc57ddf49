/* What the audit log keeps about one finished tools/call, built when the
 * call is recorded: as it is answered, or later when a backend held its
 * record open to learn more (tool_call_hold: whether typed text went into a
 * password field), with the notes it gave. Secrets never
 * leave this file. Values under password-like keys are always replaced;
 * "text" and "value" too when the caller said the call is secret (secret:
 * true), a backend noted that it typed into a password field (note
 * "redacted": true), or the arguments failed validation (a secret of the
 * wrong type, say an array, is still a secret). Whatever was replaced is
 * cut out of the error message too, in case it was quoted there. */
#define LOG_MODULE "audit"
#include "core/json_out.h"
#include "core/scrub.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "core/xmalloc.h"
#include "mcp/resources.h"
#include "mcp/tool.h"
#include "policy/audit.h"

#include <string.h>
#include <strings.h>

/* Longer argument strings and error texts are shortened: a 16 MB paste
 * must not be held 10,000 times in the queue. */
#define MAX_STRING 4096
/* Arguments whose JSON is longer still (many strings) are kept as the
 * start of that JSON. */
#define MAX_ARGUMENTS 65536

static const char REDACTED[] = SCRUB_REDACTED;

static char *shortened(const char *s, size_t n)
{
    if (n <= MAX_STRING)
        return xstrndup(s, n);
    size_t keep = utf8_truncate(s, n, MAX_STRING);
    return xasprintf("%.*s… (%zu bytes)", (int)keep, s, n);
}

static void shorten_strings(json_t *v);

/* A shortened copy of item if it is a long string (new reference); else
 * NULL, with long strings inside item shortened in place. */
static json_t *shorten(json_t *item)
{
    if (!json_is_string(item) || json_string_length(item) <= MAX_STRING) {
        shorten_strings(item);
        return NULL;
    }
    char *s = shortened(json_string_value(item), json_string_length(item));
    json_t *copy = utf8_json_string(s, strlen(s));
    free(s);
    return copy;
}

/* Shortens long strings anywhere inside v (modified in place). */
static void shorten_strings(json_t *v)
{
    const char *key;
    json_t *item, *copy;
    size_t i;
    json_object_foreach(v, key, item)
    {
        if ((copy = shorten(item)))
            json_object_set_new(v, key, copy);
    }
    json_array_foreach(v, i, item)
    {
        if ((copy = shorten(item)))
            json_array_set_new(v, i, copy);
    }
}

/* Anything but false or null counts: a malformed secret flag (a string
 * "true" in a call the schema then refuses) must still hide the text. */
static bool is_secret(const json_t *args, const json_t *notes)
{
    const json_t *flag = json_object_get(args, "secret");
    const char *decision = json_string_value(json_object_get(notes, "decision"));
    return (flag && !json_is_false(flag) && !json_is_null(flag)) ||
           json_is_true(json_object_get(notes, "redacted")) ||
           (decision && strcmp(decision, "invalid") == 0);
}

/* Keys whose values are secrets by their name, in any call. */
static bool password_like(const char *key)
{
    static const struct {
        const char *s;
        size_t n;
    } parts[] = {{"password", 8}, {"passwd", 6}, {"passphrase", 10},
                 {"secret", 6},   {"token", 5},  {"credential", 10},
                 {"api_key", 7},  {"apikey", 6}, {"private_key", 11}};
    /* "secret" itself is the flag saying the call is secret, not one. */
    if (strcmp(key, "secret") == 0)
        return false;
    /* As strcasestr for each part, without its set-up per call (every key
     * of every call's arguments comes here): a part can start only where
     * the key has its first letter, in either case. */
    for (const char *p = key; *p; p++) {
        char c = (char)(*p | 0x20);
        for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
            if (c == parts[i].s[0] && strncasecmp(p, parts[i].s, parts[i].n) == 0)
                return true;
    }
    return false;
}

/* Every string inside v, appended to strings. */
static void collect_strings(const json_t *v, json_t *strings)
{
    const char *key;
    size_t i;
    const json_t *item;
    if (json_is_string(v))
        json_array_append(strings, (json_t *)v);
    json_object_foreach((json_t *)v, key, item)
    {
        collect_strings(item, strings);
    }
    json_array_foreach(v, i, item)
    {
        collect_strings(item, strings);
    }
}

/* s without the credentials of the URLs in it ("http://user:pw@host" ->
 * "http://host"), each removed userinfo appended to removed; NULL when
 * there are none. A WebDriver endpoint or a page may carry basic-auth
 * credentials in any argument. */
static json_t *without_userinfo(const char *s, json_t *removed)
{
    struct strbuf sb;
    strbuf_init(&sb);
    const char *p = s, *sep;
    bool found = false;
    while ((sep = strstr(p, "://"))) {
        const char *auth = sep + 3;
        size_t end = strcspn(auth, "/?#\"' \t\r\n<>");
        const char *at = memrchr(auth, '@', end);
        if (!at) {
            strbuf_append(&sb, p, (size_t)(auth - p));
            p = auth;
            continue;
        }
        found = true;
        strbuf_append(&sb, p, (size_t)(auth - p));
        json_array_append_new(removed, utf8_json_string(auth, (size_t)(at - auth)));
        p = at + 1;
    }
    if (!found) {
        strbuf_finish(&sb);
        return NULL;
    }
    strbuf_puts(&sb, p);
    json_t *out = utf8_json_string(sb.data, sb.len);
    strbuf_finish(&sb);
    return out;
}

/* Replaces, at any depth in v, the values of password-like keys and, when
 * secret, of "text" and "value", whatever their type; the strings they
 * held are appended to removed. URLs lose their credentials. */
static void redact(json_t *v, bool secret, json_t *removed)
{
    const char *key;
    size_t i;
    json_t *item, *clean;
    json_object_foreach(v, key, item)
    {
        bool hide = password_like(key) ||
                    (secret && (strcmp(key, "text") == 0 || strcmp(key, "value") == 0));
        if (hide) {
            collect_strings(item, removed);
            json_object_set_new(v, key, json_string(REDACTED));
        } else if (json_is_string(item) &&
                   (clean = without_userinfo(json_string_value(item), removed))) {
            json_object_set_new(v, key, clean);
        } else {
            redact(item, secret, removed);
        }
    }
    json_array_foreach(v, i, item)
    {
        if (json_is_string(item) && (clean = without_userinfo(json_string_value(item), removed)))
            json_array_set_new(v, i, clean);
        else
            redact(item, secret, removed);
    }
}

/* Whether redact or shorten_strings might change v: a key they hide, a
 * string long enough to shorten, or one that may hold a URL's
 * credentials. Errs on the side of yes; no means v can be written as is. */
static bool may_need_cleaning(const json_t *v, bool secret)
{
    if (json_is_string(v))
        return json_string_length(v) > MAX_STRING || strstr(json_string_value(v), "://");
    const char *key;
    size_t i;
    const json_t *item;
    json_object_foreach((json_t *)v, key, item)
    {
        if (password_like(key) ||
            (secret && (strcmp(key, "text") == 0 || strcmp(key, "value") == 0)) ||
            may_need_cleaning(item, secret))
            return true;
    }
    json_array_foreach(v, i, item)
    {
        if (may_need_cleaning(item, secret))
            return true;
    }
    return false;
}

static char *string_of(const json_t *v)
{
    return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

/* A string note as it is; anything else as JSON. */
static char *note_text(const json_t *v)
{
    if (!v || json_is_null(v))
        return NULL;
    if (json_is_string(v))
        return string_of(v);
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* The text blocks of an isError result, joined by newlines. malloc'd. */
static char *error_text(const json_t *result)
{
    struct strbuf sb;
    strbuf_init(&sb);
    size_t i;
    const json_t *block;
    json_array_foreach(json_object_get(result, "content"), i, block)
    {
        const json_t *text = json_object_get(block, "text");
        if (!json_is_string(text))
            continue;
        if (sb.len)
            strbuf_putc(&sb, '\n');
        strbuf_append(&sb, json_string_value(text), json_string_length(text));
    }
    return strbuf_steal(&sb);
}

/* The client columns from a tool_call_client-shaped object (taken). */
static void set_client(struct audit_row *row, json_t *client)
{
    char **t = row->text;
    const json_t *info = json_object_get(client, "client");
    t[AUDIT_CLIENT_NAME] = string_of(json_object_get(info, "name"));
    t[AUDIT_CLIENT_VERSION] = string_of(json_object_get(info, "version"));
    t[AUDIT_TRANSPORT] = string_of(json_object_get(client, "transport"));
    t[AUDIT_REMOTE] = string_of(json_object_get(client, "remote"));
    t[AUDIT_MCP_SESSION] = string_of(json_object_get(client, "mcp_session"));
    json_decref(client);
}

/* text i of row is s, borrowed: the row is packed before s goes. */
static void lend(struct audit_row *row, int i, const char *s)
{
    row->text[i] = (char *)s;
    row->borrowed |= 1u << i;
}

static void lend_string(struct audit_row *row, int i, const json_t *v)
{
    if (json_is_string(v))
        lend(row, i, json_string_value(v));
}

/* A string note borrowed as it is; anything else as JSON. */
static void lend_note(struct audit_row *row, int i, const json_t *v)
{
    if (json_is_string(v))
        lend(row, i, json_string_value(v));
    else
        row->text[i] = note_text(v);
}

/* Borrows from call and result (struct audit_row, borrowed): packed at
 * once by audit_add, so the strings of the call need no copies of their
 * own first. */
static struct audit_row *row_from_call(const struct tool_call *call, const json_t *result)
{
    struct audit_row *row = xcalloc(1, sizeof *row);
    const json_t *args = tool_call_args(call);
    const json_t *notes = tool_call_notes(call);
    char **t = row->text;
    row->duration_ms = (int64_t)tool_call_elapsed_ms(call);
    /* From its arrival: a held call is recorded after its answer. */
    row->time_ms = audit_now_ms() - (int64_t)tool_call_age_ms(call);

    struct tool_call_who who;
    tool_call_who(call, &who);
    lend(row, AUDIT_CLIENT_NAME, who.client_name);
    lend(row, AUDIT_CLIENT_VERSION, who.client_version);
    lend(row, AUDIT_TRANSPORT, who.transport);
    lend(row, AUDIT_REMOTE, who.remote);
    lend(row, AUDIT_MCP_SESSION, who.mcp_session);

    /* A call that started a session names it only in its result: a
     * session's description ({"id", "kind", …}) or a "session" field. */
    const json_t *session = json_object_get(args, "session");
    const json_t *sc = json_object_get(result, "structuredContent");
    if (!json_is_string(session))
        session = json_object_get(sc, "session");
    if (!json_is_string(session) && json_is_string(json_object_get(sc, "kind")))
        session = json_object_get(sc, "id");
    lend_string(row, AUDIT_SESSION, session);
    lend(row, AUDIT_TOOL, tool_call_tool_name(call));

    json_t *removed = json_array();
    const json_t *secrets = tool_call_secrets(call);
    json_t *clean_notes = NULL;
    if (secrets) {
        json_array_extend(removed, (json_t *)secrets);
        clean_notes = json_deep_copy(notes);
        scrub_json(clean_notes, secrets);
        notes = clean_notes;
    }
    bool secret = is_secret(args, notes);
    if (!secrets && !may_need_cleaning(args, secret)) {
        /* Nothing to hide or shorten (most calls): written as they came. */
        t[AUDIT_ARGUMENTS] = json_out_dump(args, NULL);
    } else {
        json_t *stored = json_deep_copy(args);
        if (secrets)
            scrub_json(stored, secrets);
        redact(stored, secret, removed);
        shorten_strings(stored);
        t[AUDIT_ARGUMENTS] = json_out_dump(stored, NULL);
        json_decref(stored);
    }
    size_t len = strlen(t[AUDIT_ARGUMENTS]);
    if (len > MAX_ARGUMENTS) {
        json_t *cut =
            json_pack("{s:b, s:I, s:o}", "truncated", 1, "bytes", (json_int_t)len, "start",
                      utf8_json_string(t[AUDIT_ARGUMENTS],
                                       utf8_truncate(t[AUDIT_ARGUMENTS], len, MAX_STRING)));
        free(t[AUDIT_ARGUMENTS]);
        t[AUDIT_ARGUMENTS] = json_dumps(cut, JSON_COMPACT);
        json_decref(cut);
    }

    /* The notes' strings outlive the row only with the notes themselves:
     * a cleaned copy goes at the end of this function. */
    if (clean_notes) {
        t[AUDIT_DECISION] = note_text(json_object_get(notes, "decision"));
        t[AUDIT_CONFIRMATION] = note_text(json_object_get(notes, "confirmation"));
    } else {
        lend_note(row, AUDIT_DECISION, json_object_get(notes, "decision"));
        lend_note(row, AUDIT_CONFIRMATION, json_object_get(notes, "confirmation"));
    }
    t[AUDIT_NOTES] = notes ? json_out_dump(notes, NULL) : NULL;
    bool failed = json_is_true(json_object_get(result, "isError"));
    /* A cancelled call's answer is never sent; say so rather than what
     * the tool made of it. */
    lend(row, AUDIT_OUTCOME, tool_call_cancelled(call) ? "cancelled" : failed ? "error" : "ok");
    if (failed) {
        char *text = error_text(result);
        json_t *item;
        size_t i;
        json_array_foreach(removed, i, item)
        {
            char *clean = scrub_text_one(text, json_string_value(item));
            free(text);
            text = clean;
        }
        t[AUDIT_ERROR] = shortened(text, strlen(text));
        free(text);
    }
    json_decref(removed);
    json_decref(clean_notes);
    return row;
}

struct audit_row *audit_row_from_call(const struct tool_call *call, const json_t *result)
{
    return audit_row_pack(row_from_call(call, result));
}

void audit_observe_call(void *ud, const struct tool_call *call, const json_t *result)
{
    /* audit_add packs it before anything borrowed can go. */
    audit_add(ud, row_from_call(call, result));
}

struct audit_row *audit_row_from_read(const struct resource_read *r, const char *error)
{
    struct audit_row *row = xcalloc(1, sizeof *row);
    char **t = row->text;
    row->duration_ms = (int64_t)resource_read_elapsed_ms(r);
    row->time_ms = audit_now_ms() - row->duration_ms;
    set_client(row, resource_read_client(r));
    const json_t *notes = resource_read_notes(r);
    t[AUDIT_SESSION] = string_of(json_object_get(resource_read_args(r), "session"));
    /* Not a tool: the method, so that nobody mistakes it for a call. */
    t[AUDIT_TOOL] = xstrdup("resources/read");
    const char *uri = resource_read_uri(r);
    char *cut = shortened(uri, strlen(uri));
    json_t *args = json_pack("{s:o}", "uri", utf8_json_string(cut, strlen(cut)));
    free(cut);
    t[AUDIT_ARGUMENTS] = json_dumps(args, JSON_COMPACT);
    json_decref(args);
    t[AUDIT_DECISION] = note_text(json_object_get(notes, "decision"));
    t[AUDIT_NOTES] = notes ? json_out_dump(notes, NULL) : NULL;
    t[AUDIT_OUTCOME] = xstrdup(error ? "error" : "ok");
    if (error)
        t[AUDIT_ERROR] = shortened(error, strlen(error));
    return row;
}

void audit_observe_read(void *ud, const struct resource_read *r, const char *error)
{
    audit_add(ud, audit_row_from_read(r, error));
}

struct audit_row *audit_row_from_event(const char *what, const char *session, const json_t *details)
{
    struct audit_row *row = xcalloc(1, sizeof *row);
    char **t = row->text;
    row->time_ms = audit_now_ms();
    t[AUDIT_TRANSPORT] = xstrdup("viewer");
    t[AUDIT_SESSION] = session ? xstrdup(session) : NULL;
    /* Not a tool: a name with a slash, as resources/read. */
    t[AUDIT_TOOL] = xstrdup(what);
    json_t *clean = details ? json_deep_copy(details) : json_object();
    shorten_strings(clean);
    t[AUDIT_ARGUMENTS] = json_out_dump(clean, NULL);
    json_decref(clean);
    t[AUDIT_OUTCOME] = xstrdup("ok");
    return row;
}

void audit_observe_event(void *ud, const char *what, const char *session, const json_t *details)
{
    audit_add(ud, audit_row_from_event(what, session, details));
}

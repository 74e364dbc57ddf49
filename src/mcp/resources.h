/* Resources: things a client can read by URI (a session's screen, its text, a
 * recording). Backends register providers; the server lists and reads them.
 * Reads may finish later, like tool calls. */
#pragma once
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct app;
struct resource_read;
struct tool;

struct resource_provider {
    const char *uri_template; /* RFC 6570, e.g. "glovebox://session/{id}/screen" */
    const char *prefix;       /* URIs this provider answers start with this */
    const char *name;
    const char *description;
    const char *mime_type;
    /* Append the concrete resources that exist now, and that owner (the
     * caller as in tool_call_owner) may see, to list: {uri, name, mimeType…}. */
    void (*list)(struct app *app, const char *owner, json_t *list);
    /* Start reading uri; finish with resource_read_done/_not_found/_fail. */
    void (*read)(struct resource_read *r, const char *uri);
    /* Clients may subscribe to this provider's URIs (resources/subscribe);
     * the provider then calls resources_updated when one changes. */
    bool subscribable;
    /* Optional, for completion/complete on the template's variables: append
     * to values (a JSON array) the strings that could complete value for
     * the variable named var. */
    void (*complete)(const char *var, const char *value, json_t *values);
    /* Reading uri shows what a tool shows: return that tool, and fill args
     * (an empty object) with the arguments the equivalent call would have
     * ({"session": id}). The read then passes the permission gate as that
     * call would (deny, mode, argument rules, rate limits; a read cannot
     * ask a person, so one that needs confirmation is refused), and
     * subscribing needs the tool to be visible. Return NULL when reading
     * uri needs no permission. NULL function: no permission needed. The
     * provider names the tool; mcp/ never does. */
    const struct tool *(*permission)(const char *uri, json_t *args);
    /* Optional, for subscribable providers: whether owner (as in
     * tool_call_owner) may reach what uri names now; a client is told
     * nothing about what it may not read (another client's session). NULL:
     * everyone may. */
    bool (*reachable)(struct app *app, const char *owner, const char *uri);
};

void resources_add(const struct resource_provider *p);
void resources_clear(void);
int resources_count(void);
const struct resource_provider *resources_at(int i);
const struct resource_provider *resources_find(const char *uri);

/* Whether any provider can be subscribed to / offers completions. */
bool resources_subscribable(void);
bool resources_complete(void);

/* A resource changed: every connection subscribed to uri hears
 * notifications/resources/updated. Call on the loop thread. */
void resources_updated(const char *uri);

/* Whether owner may hear about changes to uri: the policy lets it (its
 * permission tool is visible, or it needs none) and the provider lets owner
 * reach it. */
bool resources_may_watch(struct app *app, const char *owner, const char *uri);
/* Whether any connection is subscribed to uri (resources/subscribe or
 * subscriptions/listen): providers time notifications only then. */
bool resources_watched(const char *uri);

struct app *resource_read_app(const struct resource_read *r);
/* The reader, as tool_call_owner. Borrowed. */
const char *resource_read_owner(const struct resource_read *r);
/* For the audit log (call_observer.read): the URI asked for; who asked (as
 * tool_call_client); the permission arguments the provider filled
 * ({"session": id}, borrowed, never NULL); the notes ({"decision",
 * "permission": the tool}, borrowed, never NULL); ms since arrival. */
const char *resource_read_uri(const struct resource_read *r);
json_t *resource_read_client(const struct resource_read *r);
const json_t *resource_read_args(const struct resource_read *r);
const json_t *resource_read_notes(const struct resource_read *r);
uint64_t resource_read_elapsed_ms(const struct resource_read *r);
/* contents: array of {uri, mimeType, text | blob} (stolen). */
void resource_read_done(struct resource_read *r, json_t *contents);
void resource_read_not_found(struct resource_read *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void resource_read_fail(struct resource_read *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

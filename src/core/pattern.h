/* Regular expressions a client sends (wait_for's "regex"), compiled and
 * matched with hard bounds so that no pattern can hold the thread that runs
 * it: the pattern's length, its compiled size and nesting are capped at
 * compile time, and every match has a step, depth and heap limit. PCRE2
 * syntax (Perl-compatible; POSIX extended patterns mean the same). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest pattern accepted, in bytes. */
#define PATTERN_MAX_LENGTH 4096
/* Largest compiled pattern, in bytes. */
#define PATTERN_MAX_COMPILED 65536
/* Backtracking steps one match may take by default. */
#define PATTERN_MATCH_LIMIT 100000

struct pattern;

/* Compiles src. field names the argument in error messages ("regex").
 * Returns NULL with *err (caller frees) if the pattern is invalid or over a
 * bound ("argument \"regex\": regex too complex: …"). */
struct pattern *pattern_compile(const char *field, const char *src, bool ignore_case, char **err);
/* Whether s (len bytes, UTF-8; invalid sequences never match) contains a
 * match, taking at most match_limit steps (0: PATTERN_MATCH_LIMIT). Returns
 * 1 matched, 0 not, -1 over a limit with *err (caller frees) saying so. Not
 * thread-safe on one pattern: one caller at a time. */
int pattern_match(struct pattern *p, const char *s, size_t len, uint32_t match_limit, char **err);
void pattern_destroy(struct pattern *p);
/* wait_for's test on a text read from a screen (OCR, a page's text): the
 * first non-empty line of text (lines end at '\n') that contains needle,
 * or — needle NULL — has a match of p (match_limit as for pattern_match).
 * Returns the line (caller frees) or NULL. A match over its limit: NULL
 * with *err (caller frees) when err is given; without err, that line does
 * not match and the search goes on. */
char *pattern_first_line(const char *text, const char *needle, struct pattern *p,
                         uint32_t match_limit, char **err);

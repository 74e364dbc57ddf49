/* Recipes: tool calls that worked, saved as NAME.recipe.json and replayed
 * with parameters (docs/recipes.md, docs/recipe.schema.json). A recipe's
 * steps are ordinary glovebox tool calls; {{param}} in their arguments is
 * replaced by the param's value as plain data, never interpreted. */
#pragma once
#include "core/error_code.h"

#include <jansson.h>
#include <stdbool.h>

#define RECIPE_MAX_STEPS   200
#define RECIPE_MAX_PARAMS  32
#define RECIPE_MAX_BYTES   (1024 * 1024) /* a recipe file */
#define RECIPE_MAX_RETRIES 10
#define RECIPE_MAX_TEXT    4000 /* description, note, a param's description */
#define RECIPE_NAME_MAX    64

/* name.c. Recipe and param names: letters, digits, '_' and '-' (a recipe
 * name may not start with '-'; a param name starts with a letter or '_'),
 * 1..64 characters, so a name never reaches outside its directory. false
 * with *err (malloc'd) saying what is allowed; field names the argument. */
bool recipe_name_valid(const char *name, const char *field, char **err);
bool recipe_param_name_valid(const char *name);

/* check.c. A recipe document, strictly: unknown fields, wrong types,
 * undeclared {{params}}, steps calling recipe tools. name: the file's
 * name, which a "name" field must match (NULL: not checked). false with
 * *err naming the field ("steps[2].on_failure: expected stop, skip or
 * retry"). */
bool recipe_check(const json_t *doc, const char *name, char **err);

/* store.c. Where recipes live, project first: ./.glovebox/recipes, then
 * $XDG_CONFIG_HOME/glovebox/recipes (~/.config when unset). */
enum recipe_where { RECIPE_PROJECT, RECIPE_USER };
/* The directory (malloc'd), or NULL when there is no home for the user's. */
char *recipe_dir(enum recipe_where where);
/* Every *.recipe.json of both directories (a project recipe hides a user
 * one of the same name): [{name, description, where, path, params, steps
 * (count)} or {name, where, path, error}], sorted by name. */
json_t *recipe_list_all(void);
/* The recipe called name, checked: a reference the caller drops, or NULL
 * with *code and *err (malloc'd): not_found, invalid_argument (a malformed
 * file, err naming the file and the field). *path (malloc'd; may be NULL)
 * names the file. The object may be shared with other callers (a file
 * read again with the same bytes is not parsed again): never change it. */
json_t *recipe_load(const char *name, char **path, enum error_code *code, char **err);
/* Writes doc (checked by the caller) as name: where it already is, else in
 * the project directory when ./.glovebox exists, else the user's. replace:
 * an existing recipe may be overwritten. false with *code, *err. */
bool recipe_store(const char *name, const json_t *doc, bool replace, char **path,
                  enum error_code *code, char **err);
bool recipe_remove(const char *name, char **path, enum error_code *code, char **err);

/* params.c. The values of a run: given (an object of strings, or NULL) over
 * the defaults; every param needs a value; unknown names are refused. A new
 * object of strings, or NULL with *err naming the param. */
json_t *recipe_params_values(const json_t *doc, const json_t *given, char **err);
/* The values of the secret params (a new array of strings). */
json_t *recipe_params_secrets(const json_t *doc, const json_t *values);

/* subst.c. A deep copy of v with every {{NAME}} inside its strings replaced
 * by values[NAME] in one pass: what a value holds is never looked at again.
 * Object keys are not substituted. */
json_t *recipe_subst(const json_t *v, const json_t *values);
/* Calls fn for every {{NAME}} in the strings of v (at any depth). */
void recipe_placeholders(const json_t *v, void (*fn)(const char *name, size_t len, void *ud),
                         void *ud);

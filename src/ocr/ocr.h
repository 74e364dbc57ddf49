/* Optical character recognition with Tesseract, for any frame source whose
 * screen exposes no text otherwise (desktops without accessible text, later
 * VNC and phones). Tesseract lives in its own module, loaded on the first
 * recognition. Thread-safe: recognitions are
 * serialised, and one engine per language is kept (starting one takes a
 * good fraction of a second). Call from a worker thread: a recognition
 * takes tens to hundreds of milliseconds. */
#pragma once
#include <jansson.h>
#include <stdbool.h>

struct frame;

struct ocr_word {
    char *text;
    int x, y, w, h;   /* screen pixels, in the frame's coordinates */
    int line;         /* 0-based line number within the result */
    float confidence; /* 0..100 */
};

struct ocr_result {
    struct ocr_word *words;
    int count;
    char *text; /* words joined by spaces, lines by newlines; never NULL */
};

/* Is lang a well-formed Tesseract language list ("eng", "eng+deu") whose
 * data is installed? false with *err naming the field, or the Debian
 * package to install (tesseract-ocr-<lang>). */
bool ocr_lang_check(const char *lang, char **err);
/* Is OCR in this build (meson -Docr=)? false with *err saying it is not,
 * for an error with the code not_supported. */
bool ocr_in_build(char **err);
/* Recognise the words in the rectangle (x, y, w, h) of f (w == 0: all of
 * it). With deadline_ms > 0, Tesseract stops after that long and what it
 * read so far is the result. false with *err on failure; no words is a
 * success. */
bool ocr_recognize(const struct frame *f, int x, int y, int w, int h, const char *lang,
                   int deadline_ms, struct ocr_result *out, char **err);
void ocr_result_finish(struct ocr_result *r);
/* Up to limit places where text appears in r, case-insensitively within a
 * line (exact: case and whole words): [{source: "ocr", text, bounds {x, y,
 * width, height}, confidence, line}], bounds the union of the words the
 * match touches. */
json_t *ocr_matches(const struct ocr_result *r, const char *text, bool exact, int limit);
/* The text mirror of ocr_matches' answer: "N matches (ocr)" and a line per
 * match ("TEXT" at x,y WxH). Caller frees. */
char *ocr_matches_caption(const json_t *matches);
/* Where Tesseract's language data is ($TESSDATA_PREFIX or Debian's). */
const char *ocr_tessdata_dir(void);

/* What the OCR module (glovebox-ocr.so) offers; ocr_recognize calls it
 * after checking the arguments. Its engines are freed by the module's
 * finish (module_finish_all). */
struct ocr_api {
    bool (*recognize)(const struct frame *f, int x, int y, int w, int h, const char *lang,
                      int deadline_ms, struct ocr_result *out, char **err);
};

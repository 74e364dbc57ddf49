/* Schema pieces the perception tools share (snapshot, find, read_text,
 * wait_for on desktops). */
#pragma once

#define PERCEIVE_APP_PROPERTY                                                                      \
    "\"app\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200,\"description\":\"Desktop: "   \
    "only applications whose accessible name contains this (e.g. zenity)\"},"                      \
    "\"window\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200,\"description\":"           \
    "\"Desktop: only top-level windows whose title contains this\"}"

#define PERCEIVE_LANG_PROPERTY                                                                     \
    "\"lang\":{\"type\":\"string\",\"pattern\":\"^[a-z_]{3,}(\\\\+[a-z_]{3,})*$\","                \
    "\"description\":\"Desktop: OCR language(s), Tesseract codes joined by + (default eng)\"}"

#define PERCEIVE_BOUNDS_SCHEMA                                                                     \
    "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"},\"y\":{\"type\":"           \
    "\"integer\"},\"width\":{\"type\":\"integer\"},\"height\":{\"type\":\"integer\"}}}"

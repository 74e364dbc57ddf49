/* JSON Schema text shared by tools that describe sessions. */
#pragma once

#define SESSION_OBJECT_SCHEMA                                                                      \
    "{\"type\":\"object\",\"properties\":{"                                                        \
    "\"id\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"                                 \
    "\"state\":{\"type\":\"string\",\"enum\":[\"starting\",\"live\",\"stopping\",\"ended\"]},"     \
    "\"name\":{\"type\":[\"string\",\"null\"]},\"age_ms\":{\"type\":\"integer\"},"                 \
    "\"end_reason\":{\"type\":\"string\"}},"                                                       \
    "\"required\":[\"id\",\"kind\",\"state\"]}"

/* Schema pieces the pointer tools share (click, drag, scroll). */
#pragma once

#define POINTER_SCALE_PROPERTY                                                                     \
    "\"scale\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":16,\"description\":"        \
    "\"The scale of the screenshot the coordinates were read from (its result says it); "          \
    "coordinates are divided by it. Default 1: screen pixels\"}"

#define POINTER_BUTTON_PROPERTY                                                                    \
    "\"button\":{\"type\":\"string\",\"enum\":[\"left\",\"middle\",\"right\"],"                    \
    "\"description\":\"Mouse button (default left)\"}"

#define POINTER_COORD(what)                                                                        \
    "{\"type\":\"number\",\"minimum\":0,\"maximum\":100000,\"description\":\"" what "\"}"

#define POINTER_POINT_SCHEMA                                                                       \
    "{\"type\":\"object\",\"properties\":{\"x\":" POINTER_COORD(                                   \
        "pixels from the left") ","                                                                \
                                "\"y\":" POINTER_COORD(                                            \
                                    "pixels from the top") "},\"required\":[\"x\",\"y\"],"         \
                                                           "\"additionalProperties\":false}"

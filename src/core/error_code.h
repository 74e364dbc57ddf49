/* The one list of codes a failed tool call carries in
 * structuredContent.error.code (docs/errors.md). Clients branch on the code,
 * people read the message. */
#pragma once

enum error_code {
    ERROR_TOOL_FAILED = 0,    /* the operation ran and failed (the default) */
    ERROR_INVALID_ARGUMENT,   /* an argument is wrong: the message names the field */
    ERROR_NOT_FOUND,          /* no such session, element, window, recording */
    ERROR_NOT_SUPPORTED,      /* this kind of session cannot do that */
    ERROR_DENIED,             /* the policy, the mode or the person said no */
    ERROR_DEVICE_UNAVAILABLE, /* the screen or device cannot be reached */
    ERROR_SESSION_EXPIRED,    /* the session has ended */
    ERROR_TIMEOUT,            /* a wait ran out of time */
};
/* The last code: codes run from 0 to it (the schema's enum lists them). */
#define ERROR_CODE_LAST ERROR_TIMEOUT

/* "invalid_argument", …: the code's name on the wire. */
const char *error_code_name(enum error_code code);

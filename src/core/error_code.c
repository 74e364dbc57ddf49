#include "core/error_code.h"

const char *error_code_name(enum error_code code)
{
    switch (code) {
    case ERROR_INVALID_ARGUMENT:
        return "invalid_argument";
    case ERROR_NOT_FOUND:
        return "not_found";
    case ERROR_NOT_SUPPORTED:
        return "not_supported";
    case ERROR_DENIED:
        return "denied";
    case ERROR_DEVICE_UNAVAILABLE:
        return "device_unavailable";
    case ERROR_SESSION_EXPIRED:
        return "session_expired";
    case ERROR_TIMEOUT:
        return "timeout";
    case ERROR_TOOL_FAILED:
        break;
    }
    return "tool_failed";
}

/* Time for code that polls off the loop (a worker waiting for a screen, a
 * pointer moved in steps), where uv_now is not to be had. */
#pragma once
#include <stdint.h>

/* Milliseconds on the monotonic clock (the clock uv_hrtime reads). */
uint64_t clock_now_ms(void);
/* Sleeps the whole ms, resumed after a signal. Never on the loop thread. */
void clock_sleep_ms(int ms);

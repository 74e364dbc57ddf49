#include "image/pixel_budget.h"
#include "core/check.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static uint64_t in_use;

void image_budget_acquire(uint64_t pixels)
{
    pthread_mutex_lock(&lock);
    /* One image always fits once the others are done. */
    while (in_use && in_use + pixels > IMAGE_BUDGET_PIXELS)
        pthread_cond_wait(&freed, &lock);
    in_use += pixels;
    pthread_mutex_unlock(&lock);
}

void image_budget_release(uint64_t pixels)
{
    pthread_mutex_lock(&lock);
    CHECK(in_use >= pixels);
    in_use -= pixels;
    pthread_cond_broadcast(&freed);
    pthread_mutex_unlock(&lock);
}

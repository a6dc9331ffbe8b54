/* One status line on stderr for anything that takes more than a second,
 * shown only on a TTY and erased before real output is printed. */
#ifndef BUILDWALL_PROGRESS_H
#define BUILDWALL_PROGRESS_H

/* Set what is going on now, e.g. "[7/27] opus_gemm.cuda.o"; the line shows
 * it with the seconds since it was set. */
void progress_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Redraw (called while waiting on children). */
void progress_tick(void);
void progress_clear(void);

#endif

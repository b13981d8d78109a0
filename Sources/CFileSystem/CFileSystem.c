#if defined(__linux__)
#define _GNU_SOURCE
#include <unistd.h>

int archive_syncfs(int descriptor) { return syncfs(descriptor); }
#else
#include <errno.h>

int archive_syncfs(int descriptor) {
    (void)descriptor;
    errno = ENOSYS;
    return -1;
}
#endif

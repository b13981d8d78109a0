#ifndef C_FILE_SYSTEM_H
#define C_FILE_SYSTEM_H

/// `syncfs(2)` (Linux): writes out everything pending on the file system holding `descriptor`
/// and flushes the drive's cache, in one call. Elsewhere -1 with `errno` `ENOSYS`. (Swift's
/// Glibc module leaves it out: it is declared only with `_GNU_SOURCE`.)
int archive_syncfs(int descriptor);

#endif

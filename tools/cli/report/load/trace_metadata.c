/* The packet layout is CTF 1.8's (section 7.1, "Metadata"): each packet
 * starts with a 37-byte header, in the byte order its magic number shows:
 * magic (u32), trace UUID (16 bytes), checksum, content_size and
 * packet_size (u32 each, in bits), then five one-byte fields. The text
 * fills content_size; packet_size - content_size is padding. */
#include "trace_metadata.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PACKET_MAGIC 0x75d11d57u
#define HEADER_BYTES 37
#define CONTENT_SIZE_AT 24
#define PACKET_SIZE_AT 28

static uint32_t u32(const unsigned char *p, bool swapped)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swapped ? __builtin_bswap32(v) : v;
}

/* Why the packets from byte 0 of fd (size bytes) cannot be read; NULL when
 * they can. */
static char *packets_damage(int fd, uint64_t size, bool swapped)
{
    unsigned char h[HEADER_BYTES];
    unsigned n = 1;
    for (uint64_t at = 0; at < size; n++) {
        ssize_t got = pread(fd, h, sizeof h, (off_t)at);
        if (got < 0)
            return xasprintf("cannot be read: %s", strerror(errno));
        if (got < HEADER_BYTES)
            return xasprintf("packet %u (byte %llu): its header is cut short (%zd of %d bytes)", n,
                             (unsigned long long)at, got, HEADER_BYTES);
        if (u32(h, swapped) != PACKET_MAGIC)
            return xasprintf("packet %u (byte %llu): no packet header (magic 0x%08x)", n,
                             (unsigned long long)at, u32(h, swapped));
        uint64_t content = u32(h + CONTENT_SIZE_AT, swapped), packet = u32(h + PACKET_SIZE_AT, swapped);
        if (content < 8 * HEADER_BYTES || content % 8 || packet < content || packet % 8)
            return xasprintf("packet %u (byte %llu): sizes that cannot be (content %llu bits, "
                             "packet %llu bits)", n, (unsigned long long)at, (unsigned long long)content,
                             (unsigned long long)packet);
        if (at + content / 8 > size)
            return xasprintf("packet %u (byte %llu): its content ends at byte %llu, after the file's "
                             "end (%llu bytes)", n, (unsigned long long)at,
                             (unsigned long long)(at + content / 8), (unsigned long long)size);
        at += packet / 8;
    }
    return NULL;
}

char *trace_metadata_damage(const char *dir)
{
    char *path = xasprintf("%s/metadata", dir);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return xasprintf("cannot be opened: %s", strerror(errno));
    struct stat st;
    unsigned char magic[4];
    char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = xasprintf("cannot be read: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        why = xasprintf("is not a regular file");
    else if (pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic) {
        /* Packets in the order of the machine that wrote them; text else. */
        if (u32(magic, false) == PACKET_MAGIC)
            why = packets_damage(fd, (uint64_t)st.st_size, false);
        else if (u32(magic, true) == PACKET_MAGIC)
            why = packets_damage(fd, (uint64_t)st.st_size, true);
    }
    close(fd);
    return why;
}

/* A trace's CTF metadata checked before libbabeltrace2 reads it: LTTng
 * writes it as packets, and a packet whose content the file cuts short (a
 * copy interrupted, a disk full, a session killed while it wrote) makes
 * babeltrace2 2.0 retry its read forever at 100% CPU instead of failing.
 * trace_metadata.c */
#ifndef NCCLTAP_CLI_TRACE_METADATA_H
#define NCCLTAP_CLI_TRACE_METADATA_H

/* NULL when DIR/metadata can be handed to babeltrace2: plain-text metadata
 * (babeltrace2 reports its errors), or packets that are whole up to the end
 * of their content (the last packet's padding may be missing). Otherwise
 * why it cannot, malloc'ed: "packet 2 (byte 4096): its content ends at byte
 * 8189, after the file's end (6000 bytes)". */
char *trace_metadata_damage(const char *dir);

#endif

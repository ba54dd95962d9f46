/* Protobuf wire format reading shared by the normaliser's C kernels (_scalars.c, _histograms.c). */

#ifndef TRAINBOARD_WIRE_H
#define TRAINBOARD_WIRE_H

#include <stdint.h>
#include <string.h>

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LENGTH = 2, WIRE_FIXED32 = 5 };

#define KEY(field, wire) ((field) << 3 | (wire))

/* The varint at *position, moving *position past it; *position = -1 when it is malformed or runs past `end`. */
static inline int64_t varint(const uint8_t *data, int64_t *position, int64_t end) {
    uint64_t value = 0;
    for (unsigned shift = 0; *position < end && shift < 64; shift += 7) {
        const uint8_t byte = data[(*position)++];
        value |= (uint64_t)(byte & 0x7F) << shift;
        if (byte < 0x80) return (int64_t)value;
    }
    *position = -1;
    return 0;
}

static inline uint64_t little_endian(const uint8_t *data, int size) {
    uint64_t value = 0;
    for (int index = size - 1; index >= 0; index--) value = (value << 8) | data[index];
    return value;
}

static inline double fixed_double(const uint8_t *data) {
    double value;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&value, data, 8);
#else
    const uint64_t bits = little_endian(data, 8);
    memcpy(&value, &bits, 8);
#endif
    return value;
}

/* Whether every record (starts[i], lengths[i]) lies inside `size` bytes. */
static inline int inside(const int64_t *starts, const int64_t *lengths, int64_t count, int64_t size) {
    for (int64_t index = 0; index < count; index++)
        if (starts[index] < 0 || lengths[index] < 0 || starts[index] > size || lengths[index] > size - starts[index])
            return 0;
    return 1;
}

#endif

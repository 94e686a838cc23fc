#!/usr/bin/env python3
"""Why "encrypt only the Huffman tables" of deflate data hides nothing.

Reproduces the demonstration in docs/security.md. Python 3 and its standard library only:
zlib compresses (raw deflate, wbits=-15, RFC 1951), and a small decoder below plays an
attacker who has no key and never sees a Huffman table. It knows only RFC 1951, including the
fixed code table that the RFC defines and that is never transmitted.

Run: python3 scripts/deflate-tables-demo.py
The record is made up: example.com addresses and 4111 1111 1111 1111, a well-known test card
number that no bank issues to anyone.
"""

import hashlib
import json
import zlib
from fractions import Fraction

# RFC 1951 section 3.2.5: base lengths and distances of the length and distance codes.
LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
               35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385,
             513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
              8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
# RFC 1951 section 3.2.7: the order in which a dynamic header lists code-length code lengths.
CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
BTYPE_NAMES = {0: "stored", 1: "fixed Huffman", 2: "dynamic Huffman", 3: "reserved (error)"}

RECORD = json.dumps({
    "id": 48213,
    "name": "Jane Example",
    "email": "jane.example@example.com",
    "card": "4111 1111 1111 1111",
    "exp": "12/29",
    "cvv": "123",
    "address": "1 Example Street, Springfield",
    "note": "test data, not a real card",
}, separators=(",", ":")).encode()


class BitReader:
    """Reads bits least significant first within each byte, as RFC 1951 section 3.1.1 packs them."""

    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos  # in bits

    def bit(self):
        if self.pos >= 8 * len(self.data):
            raise EOFError("ran past the end of the data")
        b = (self.data[self.pos >> 3] >> (self.pos & 7)) & 1
        self.pos += 1
        return b

    def bits(self, n):
        value = 0
        for i in range(n):
            value |= self.bit() << i
        return value


def canonical_code(lengths):
    """RFC 1951 section 3.2.2: the code lengths alone define the whole code."""
    max_len = max(lengths)
    count = [0] * (max_len + 1)
    for n in lengths:
        if n:
            count[n] += 1
    next_code = [0] * (max_len + 1)
    code = 0
    for n in range(1, max_len + 1):
        code = (code + count[n - 1]) << 1 if n > 1 else 0
        next_code[n] = code
    table = {}
    for symbol, n in enumerate(lengths):
        if n:
            table[(n, next_code[n])] = symbol
            next_code[n] += 1
    return table


def read_symbol(reader, table):
    code = 0
    for n in range(1, 16):
        code = (code << 1) | reader.bit()  # Huffman codes are packed most significant bit first
        if (n, code) in table:
            return table[(n, code)]
    raise ValueError("no code matches")


# RFC 1951 section 3.2.6: the fixed code. It is part of the standard, never part of the data.
FIXED_LITLEN = canonical_code([8] * 144 + [9] * 112 + [7] * 24 + [8] * 8)
FIXED_DIST = canonical_code([5] * 30)


def decode_symbols(reader, litlen, dist, out, tokens):
    """Decodes one block's literals and matches until end-of-block (symbol 256)."""
    while True:
        symbol = read_symbol(reader, litlen)
        if symbol < 256:
            out.append(symbol)
            tokens.append(symbol)
        elif symbol == 256:
            return
        else:
            i = symbol - 257
            length = LENGTH_BASE[i] + reader.bits(LENGTH_EXTRA[i])
            d = read_symbol(reader, dist)
            distance = DIST_BASE[d] + reader.bits(DIST_EXTRA[d])
            for _ in range(length):
                out.append(out[-distance])
            tokens.append((length, distance))


def read_dynamic_table(reader):
    """RFC 1951 section 3.2.7. Only used to measure where the table ends: the attacker never calls it."""
    hlit = reader.bits(5) + 257
    hdist = reader.bits(5) + 1
    hclen = reader.bits(4) + 4
    cl_lengths = [0] * 19
    for i in range(hclen):
        cl_lengths[CODE_LENGTH_ORDER[i]] = reader.bits(3)
    cl_code = canonical_code(cl_lengths)
    lengths = []
    while len(lengths) < hlit + hdist:
        symbol = read_symbol(reader, cl_code)
        if symbol < 16:
            lengths.append(symbol)
        elif symbol == 16:
            lengths += [lengths[-1]] * (3 + reader.bits(2))
        elif symbol == 17:
            lengths += [0] * (3 + reader.bits(3))
        else:
            lengths += [0] * (11 + reader.bits(7))
    return hlit, hdist, hclen, lengths[:hlit], lengths[hlit:]


def attacker_inflate(data):
    """Decodes stored and fixed blocks with no key and no table; stops at a dynamic block."""
    reader = BitReader(data)
    out, tokens, blocks = bytearray(), [], []
    while True:
        start = reader.pos
        bfinal, btype = reader.bits(1), reader.bits(2)
        blocks.append((start, bfinal, btype))
        if btype == 0:
            reader.pos = (reader.pos + 7) & ~7  # stored: skip to the byte boundary
            length, nlength = reader.bits(16), reader.bits(16)
            assert length ^ nlength == 0xFFFF
            chunk = data[reader.pos // 8: reader.pos // 8 + length]
            out += chunk
            tokens += list(chunk)
            reader.pos += 8 * length
        elif btype == 1:
            decode_symbols(reader, FIXED_LITLEN, FIXED_DIST, out, tokens)
        else:
            return bytes(out), tokens, blocks, "stopped: a %s block needs its table" % BTYPE_NAMES[btype]
        if bfinal:
            return bytes(out), tokens, blocks, "complete"


def deflate(data, level=6, strategy=zlib.Z_DEFAULT_STRATEGY):
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 9, strategy)
    return c.compress(data) + c.flush()


def hex_lines(data, width=16):
    lines = []
    for at in range(0, len(data), width):
        row = data[at:at + width]
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append("  %04x  %-*s  %s" % (at, 3 * width, " ".join("%02x" % b for b in row), text))
    return "\n".join(lines)


def show_tokens(tokens):
    parts, run = [], bytearray()
    for t in tokens:
        if isinstance(t, int):
            run.append(t)
            continue
        if run:
            parts.append(repr(run.decode("latin-1")))
            run = bytearray()
        parts.append("<copy %d from %d back>" % t)
    if run:
        parts.append(repr(run.decode("latin-1")))
    return " ".join(parts)


def attack(title, plaintext, compressed):
    print("== %s" % title)
    print("plaintext (%d bytes): %s" % (len(plaintext), plaintext.decode()))
    print("compressed (%d bytes):" % len(compressed))
    print(hex_lines(compressed))
    recovered, tokens, blocks, status = attacker_inflate(compressed)
    for start, bfinal, btype in blocks:
        print("block at bit %d: BFINAL=%d BTYPE=%s (%s)"
              % (start, bfinal, format(btype, "02b"), BTYPE_NAMES[btype]))
    print("attacker (no key, no table): %s, %d bytes" % (status, len(recovered)))
    print("recovered == plaintext: %s" % (recovered == plaintext))
    print("recovered: %s" % recovered.decode("latin-1"))
    print("LZ77 tokens as stored: %s" % show_tokens(tokens))
    print()


def block_type_by_size():
    print("== 3. Which block type zlib picks by itself (level 6), as the record grows field by field")
    print("  %6s  %10s  %s" % ("bytes", "compressed", "block type"))
    record = json.loads(RECORD)
    partial = {}
    for key, value in record.items():
        partial[key] = value
        data = json.dumps(partial, separators=(",", ":")).encode()
        out = deflate(data)
        print("  %6d  %10d  %s" % (len(data), len(out), BTYPE_NAMES[(out[0] >> 1) & 3]))
    print()


def stored_blocks():
    print("== 4. Stored blocks: the bytes are in the stream verbatim")
    out = deflate(RECORD, level=0)
    print("level 0, compressed (%d bytes):" % len(out))
    print(hex_lines(out))
    recovered, _, blocks, status = attacker_inflate(out)
    print("BTYPE=%s (%s); attacker: %s, recovered == plaintext: %s"
          % (format(blocks[0][2], "02b"), BTYPE_NAMES[blocks[0][2]], status, recovered == RECORD))
    # A value that does not compress (here a name and 48 bytes that look random, as a key or a
    # token does) is stored by zlib on its own, at its default level: no Huffman code is shorter.
    token = b"apikey:" + hashlib.sha512(b"not a real secret").digest()[:48]
    out = deflate(token)
    recovered, _, blocks, status = attacker_inflate(out)
    print("a %d-byte incompressible value at level 6: %d bytes, block type %s, recovered == value: %s"
          % (len(token), len(out), BTYPE_NAMES[blocks[0][2]], recovered == token))
    print(hex_lines(out))
    print()


def dynamic_block():
    print("== 5. The same record at level 6: one dynamic block")
    out = deflate(RECORD)
    reader = BitReader(out)
    reader.bits(3)
    table_start = reader.pos
    hlit, hdist, hclen, litlen, dist = read_dynamic_table(reader)
    table_end = reader.pos
    total = 8 * len(out)
    print("compressed: %d bytes = %d bits" % (len(out), total))
    print("  bits 0-2     block header: BFINAL=1 BTYPE=10 (dynamic Huffman)")
    print("  bits %d-%d   the table: HLIT=%d HDIST=%d HCLEN=%d, %d bits (%.0f%% of the block)"
          % (table_start, table_end - 1, hlit, hdist, hclen, table_end - table_start,
             100.0 * (table_end - table_start) / total))
    print("  bits %d-%d  literals, matches and end-of-block, %d bits, coded with that table"
          % (table_end, total - 1, total - table_end))
    used = [(s, n) for s, n in enumerate(litlen) if n]
    print("the table encodes %d code lengths, each 0-15; %d literal/length symbols are used, lengths %d-%d"
          % (hlit + hdist, len(used), min(n for _, n in used), max(n for _, n in used)))
    # Kraft sum 1: the used codes fill the code space exactly, one more constraint on the secret.
    print("Kraft sum of the used code lengths: literal/length %s, distance %s"
          % (kraft(litlen), kraft(dist)))
    recovered, _, _, status = attacker_inflate(out)
    print("attacker's fixed-table decoder: %s" % status)

    # Encrypting the table leaves bits table_end.. as zlib wrote them, and deflate is deterministic:
    # the same value always gives the same bits there, whatever a cipher does to the table.
    again = deflate(RECORD)
    print("same value compressed again: bits after the table identical: %s"
          % (bits_after(again, table_end) == bits_after(out, table_end)))

    # So a guess can be checked without the key: compress the candidate and compare its clear bits
    # with the end of the stored stream (so the attacker need not know where the stored table
    # ends, or how long its ciphertext is). Here the attacker knows the rest of the record (say,
    # from another copy of it) and tries every three-digit CVV.
    record = json.loads(RECORD)
    stored = bits_after(out, 0)
    matches = []
    for cvv in range(1000):
        record["cvv"] = "%03d" % cvv
        candidate = deflate(json.dumps(record, separators=(",", ":")).encode())
        r = BitReader(candidate)
        if r.bits(3) >> 1 != 2:
            continue  # not a dynamic block, so it cannot be the stored one
        read_dynamic_table(r)  # the attacker's own table: it compressed the candidate itself
        clear = bits_after(candidate, r.pos)
        if len(clear) < len(stored) and stored[-len(clear):] == clear:
            matches.append(record["cvv"])
    print("1000 CVV guesses checked against the clear bits only: matches %s" % matches)
    print()


def kraft(lengths):
    total = sum(Fraction(1, 2 ** n) for n in lengths if n)
    return str(total)


def bits_after(data, bit):
    reader = BitReader(data, bit)
    return [reader.bit() for _ in range(8 * len(data) - bit)]


def main():
    print("zlib %s, raw deflate (wbits=-15)" % zlib.ZLIB_RUNTIME_VERSION)
    print()
    short = json.dumps({"id": 48213, "email": "jane.example@example.com",
                        "card": "4111 1111 1111 1111"}, separators=(",", ":")).encode()
    attack("1. A short JSON value at zlib's default level (6): zlib picks a fixed block itself",
           short, deflate(short))
    attack("2. The full record with strategy Z_FIXED", RECORD, deflate(RECORD, 9, zlib.Z_FIXED))
    block_type_by_size()
    stored_blocks()
    dynamic_block()


if __name__ == "__main__":
    main()

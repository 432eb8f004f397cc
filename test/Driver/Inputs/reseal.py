"""Recomputes an object's .q2.digest (SHA-256 of the file with the digest
bytes read as zeros), as a deliberate forger would: reseal.py in.o out.o.
Or `reseal.py --mutate K SEED in.o out.o`: K random single-byte changes
outside the digest section, then NOT resealed (corruption)."""
import hashlib
import random
import struct
import sys


def digest_range(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def sh(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        name, _, _, _, off, size = sh(i)[:6]
        end = data.index(b"\0", stroff + name)
        if data[stroff + name:end] == b".q2.digest":
            return off, size
    sys.exit("no .q2.digest section")


args = sys.argv[1:]
if args[0] == "--mutate":
    k, seed, src, dst = int(args[1]), int(args[2]), args[3], args[4]
    data = bytearray(open(src, "rb").read())
    off, size = digest_range(data)
    rng = random.Random(seed)
    for _ in range(k):
        while True:
            i = rng.randrange(len(data))
            if not off <= i < off + size:
                break
        data[i] ^= rng.randrange(1, 256)
    open(dst, "wb").write(data)
    sys.exit(0)
src, dst = args
data = bytearray(open(src, "rb").read())
off, size = digest_range(data)
data[off:off + size] = bytes(size)
data[off:off + size] = hashlib.sha256(data).digest()
open(dst, "wb").write(data)

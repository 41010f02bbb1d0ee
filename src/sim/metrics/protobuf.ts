/**
 * A minimal protobuf encoder (proto2 wire format: varints, length-delimited fields), enough to
 * write Perfetto traces. Messages are built into a growable byte buffer; a nested message is
 * written by reserving its length prefix and patching it once the message is complete, so
 * nothing is copied per field.
 */

const WT_VARINT = 0
const WT_LEN = 2

const utf8 = new TextEncoder()

export class ProtoWriter {
  buf: Uint8Array
  len = 0
  /** Start offsets of the open nested messages (just after their 5-byte length slot). */
  private readonly open: number[] = []

  constructor(initial = 1 << 16) {
    this.buf = new Uint8Array(initial)
  }

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.len + n) size *= 2
    const b = new Uint8Array(size)
    b.set(this.buf.subarray(0, this.len))
    this.buf = b
  }

  /** An unsigned varint (values up to 2^53 exactly; negative int64/int32 as 10-byte two's complement). */
  varint(v: number): void {
    this.ensure(10)
    const b = this.buf
    let n = this.len
    if (v < 0) {
      // two's complement over 64 bits: the low 32 bits, then the high ones (all set)
      let lo = v >>> 0
      let hi = Math.floor(v / 4294967296) >>> 0
      for (let i = 0; i < 9; i++) {
        b[n++] = (lo & 0x7f) | 0x80
        lo = (lo >>> 7) | ((hi & 0x7f) << 25)
        hi >>>= 7
      }
      b[n++] = lo & 0x01
      this.len = n
      return
    }
    while (v >= 0x80) {
      b[n++] = (v % 128) | 0x80
      v = Math.floor(v / 128)
    }
    b[n++] = v
    this.len = n
  }

  tag(field: number, wt: number): void {
    this.varint(field * 8 + wt)
  }

  uint(field: number, v: number): void {
    this.tag(field, WT_VARINT)
    this.varint(Math.round(v))
  }

  int(field: number, v: number): void {
    this.uint(field, v)
  }

  bool(field: number, v: boolean): void {
    this.tag(field, WT_VARINT)
    this.varint(v ? 1 : 0)
  }

  string(field: number, s: string): void {
    this.tag(field, WT_LEN)
    // at most 3 bytes per UTF-16 unit: a short string's length fits one byte, a longer one
    // gets a padded 5-byte varint (valid protobuf, as for nested messages)
    this.ensure(5 + s.length * 3)
    const short = s.length * 3 < 128
    const at = this.len + (short ? 1 : 5)
    const n = utf8.encodeInto(s, this.buf.subarray(at)).written
    if (short) this.buf[this.len] = n
    else {
      let v = n
      for (let i = 0; i < 4; i++) {
        this.buf[this.len + i] = (v & 0x7f) | 0x80
        v >>>= 7
      }
      this.buf[this.len + 4] = v & 0x7f
    }
    this.len = at + n
  }

  bytes(field: number, data: Uint8Array): void {
    this.tag(field, WT_LEN)
    this.varint(data.length)
    this.ensure(data.length)
    this.buf.set(data, this.len)
    this.len += data.length
  }

  /** Append bytes already encoded as fields of the current message. */
  raw(data: Uint8Array, n = data.length): void {
    this.ensure(n)
    this.buf.set(n === data.length ? data : data.subarray(0, n), this.len)
    this.len += n
  }

  /** Open a nested message in `field`; close it with end(). */
  begin(field: number): void {
    this.tag(field, WT_LEN)
    this.ensure(5)
    this.len += 5
    this.open.push(this.len)
  }

  /** Close the innermost message: its length goes in a 5-byte varint (padded), no copy. */
  end(): void {
    const start = this.open.pop()!
    let n = this.len - start
    let at = start - 5
    for (let i = 0; i < 4; i++) {
      this.buf[at++] = (n & 0x7f) | 0x80
      n >>>= 7
    }
    this.buf[at] = n & 0x7f
  }

  /** The bytes written so far (a view), and reset for reuse. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.len)
    this.len = 0
    return out
  }
}

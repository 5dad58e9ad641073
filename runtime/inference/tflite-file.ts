// Reads what the native runner does not expose from a .tflite file itself:
// the quantization (scale, zero point) of the input and output tensors, from
// the FlatBuffer, and the files embedded in its metadata (a .tflite with
// metadata is also a zip archive; Coral's classifiers carry their labels so).
// Only the handful of fields needed are read, following schema.fbs.
import zlib from 'node:zlib';

export interface TensorQuant {
  name: string;
  shape: number[];
  type: string;
  /** real = scale * (quantized - zeroPoint); scale 0 means not quantized */
  scale: number;
  zeroPoint: number;
}

export interface ModelTensors {
  inputs: TensorQuant[];
  outputs: TensorQuant[];
}

const TENSOR_TYPES = ['float32', 'float16', 'int32', 'uint8', 'int64', 'string', 'bool', 'int16', 'complex64', 'int8', 'float64'];

/** Minimal FlatBuffer table access: enough for Model -> SubGraph -> Tensor -> QuantizationParameters. */
class Table {
  constructor(private readonly buf: Buffer, readonly pos: number) {}

  private field(id: number): number {
    const vtable = this.pos - this.buf.readInt32LE(this.pos);
    const vtableSize = this.buf.readUInt16LE(vtable);
    const slot = 4 + id * 2;
    if (slot >= vtableSize) return 0;
    const off = this.buf.readUInt16LE(vtable + slot);
    return off ? this.pos + off : 0;
  }

  table(id: number): Table | undefined {
    const at = this.field(id);
    return at ? new Table(this.buf, at + this.buf.readUInt32LE(at)) : undefined;
  }

  private vector(id: number): { start: number; length: number } | undefined {
    const at = this.field(id);
    if (!at) return undefined;
    const start = at + this.buf.readUInt32LE(at);
    return { start: start + 4, length: this.buf.readUInt32LE(start) };
  }

  tables(id: number): Table[] {
    const v = this.vector(id);
    if (!v) return [];
    return Array.from({ length: v.length }, (_, i) => {
      const at = v.start + i * 4;
      return new Table(this.buf, at + this.buf.readUInt32LE(at));
    });
  }

  ints(id: number): number[] {
    const v = this.vector(id);
    return v ? Array.from({ length: v.length }, (_, i) => this.buf.readInt32LE(v.start + i * 4)) : [];
  }

  floats(id: number): number[] {
    const v = this.vector(id);
    return v ? Array.from({ length: v.length }, (_, i) => this.buf.readFloatLE(v.start + i * 4)) : [];
  }

  longs(id: number): number[] {
    const v = this.vector(id);
    return v ? Array.from({ length: v.length }, (_, i) => Number(this.buf.readBigInt64LE(v.start + i * 8))) : [];
  }

  byte(id: number): number {
    const at = this.field(id);
    return at ? this.buf.readInt8(at) : 0;
  }

  string(id: number): string {
    const at = this.field(id);
    if (!at) return '';
    const start = at + this.buf.readUInt32LE(at);
    return this.buf.toString('utf8', start + 4, start + 4 + this.buf.readUInt32LE(start));
  }
}

/** The first subgraph's input and output tensors with their quantization. Throws on a file that is not a TFLite model. */
export function readModelTensors(file: Buffer): ModelTensors {
  if (file.length < 8 || file.toString('ascii', 4, 8) !== 'TFL3') {
    throw new Error('not a TensorFlow Lite model (no TFL3 identifier)');
  }
  const model = new Table(file, file.readUInt32LE(0));
  const subgraph = model.tables(2)[0];
  if (!subgraph) throw new Error('the model has no subgraph');
  const tensors = subgraph.tables(0);
  const describe = (index: number): TensorQuant => {
    const t = tensors[index];
    if (!t) throw new Error(`tensor ${index} is missing`);
    const q = t.table(4);
    return {
      name: t.string(3),
      shape: t.ints(0),
      type: TENSOR_TYPES[t.byte(1)] ?? `type${t.byte(1)}`,
      scale: q?.floats(2)[0] ?? 0,
      zeroPoint: q?.longs(3)[0] ?? 0,
    };
  };
  return { inputs: subgraph.ints(1).map(describe), outputs: subgraph.ints(2).map(describe) };
}

/** Files embedded in the model's metadata zip (name -> contents); empty when there is none. */
export function embeddedFiles(file: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  // End of central directory: signature, then the directory's size and offset.
  const eocd = file.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > file.length) return out;
  const count = file.readUInt16LE(eocd + 10);
  let at = file.readUInt32LE(eocd + 16);
  for (let i = 0; i < count && at + 46 <= file.length && file.readUInt32LE(at) === 0x02014b50; i++) {
    const method = file.readUInt16LE(at + 10);
    const compressed = file.readUInt32LE(at + 20);
    const nameLength = file.readUInt16LE(at + 28);
    const extraLength = file.readUInt16LE(at + 30);
    const commentLength = file.readUInt16LE(at + 32);
    const local = file.readUInt32LE(at + 42);
    const name = file.toString('utf8', at + 46, at + 46 + nameLength);
    if (file.readUInt32LE(local) === 0x04034b50) {
      const dataStart = local + 30 + file.readUInt16LE(local + 26) + file.readUInt16LE(local + 28);
      const data = file.subarray(dataStart, dataStart + compressed);
      if (method === 0) out.set(name, Buffer.from(data));
      else if (method === 8) out.set(name, zlib.inflateRawSync(data));
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

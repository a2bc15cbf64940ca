/** A valid JSON document of exactly `bytes` bytes (at least 13): `{"result":"xxx…"}`. */
export function jsonBodyOfSize(bytes: number): Buffer {
  const skeleton = JSON.stringify({ result: '' });
  const body = Buffer.from(JSON.stringify({ result: 'x'.repeat(Math.max(0, bytes - skeleton.length)) }));
  if (body.length !== bytes) throw new Error(`cannot build a JSON body of ${bytes} bytes`);
  return body;
}

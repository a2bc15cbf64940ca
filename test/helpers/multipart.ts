/** A multipart/form-data body holding one file part, as `curl -F file=@backup.db` sends it. */
export function multipartFile(bytes: Buffer, field = 'file') {
  const boundary = '----pmn-test-boundary';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="backup.db"\r\n` +
        'Content-Type: application/vnd.sqlite3\r\n\r\n',
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

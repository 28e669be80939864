// Starts s3rver (npm) on 127.0.0.1 with a kernel-chosen port and prints the port on stdout.
// usage: NODE_PATH=DIR/node_modules node start-s3rver.js DATA_DIR BUCKET
'use strict';
const S3rver = require('s3rver');
const [dir, bucket] = process.argv.slice(2);
if (!dir || !bucket) {
  console.error('usage: start-s3rver.js DATA_DIR BUCKET');
  process.exit(2);
}
const server = new S3rver({
  address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }],
});
server.run().then(({ port }) => console.log(port)).catch((err) => {
  console.error(`start-s3rver: ${err.message}`);
  process.exit(1);
});
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));

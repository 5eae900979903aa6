// Package schema holds the version of the JSON documents and JSON-lines
// records nnbound writes (docs/json.md), so that the printers of every
// command and the logs of the runners share one number without importing
// each other.
package schema

// Version is the schema version: every document and every log record
// starts with "schema": Version. It goes up when a field is renamed or
// removed or changes its meaning, not when one is added.
const Version = 1

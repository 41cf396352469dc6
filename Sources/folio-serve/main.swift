// `folio-serve`: the FolioServer of `folio serve` and `folio demo`, as an executable of its own
// so that the browser and the other commands do not carry Hummingbird and what only the server
// needs (docs/DECISIONS.md, "The server is its own executable"). `folio serve ARGS` execs
// `folio-serve serve ARGS`, found beside `folio`.
await ServeEntry.start()

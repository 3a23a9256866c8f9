"""Live tables: `buraco serve`, people play each other in the browser, every move in the log.

The server is the write side of the event store and each seat's screen a projection of it:
`store` keeps a table's files (its sealed log, its secret key, its meta file), `live` runs one
table (write-ahead, then each socket its own view), `tables` holds every table of the folder,
`protocol` builds each message (what a seat may see is decided there), `app` is the Starlette
app (HTTP and WebSocket routes, the limits), `server` runs it on uvicorn. The browser client
lives in `static/`. docs/serve.md is the protocol and how to run it.
"""

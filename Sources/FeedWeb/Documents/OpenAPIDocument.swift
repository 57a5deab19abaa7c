import Compression
import HTTPServer

/// The OpenAPI 3.1 description of the JSON API, served at `/api/openapi.json`. Kept next to
/// the code it describes; the contract tests (schemathesis) hold the two together.
enum OpenAPIDocument {
    static let bytes: [UInt8] = Array(text.utf8)

    /// The document with an ETag from its content, compressed once (at the densest setting) on
    /// first use.
    static let representation = Representation(
        etag: EntityTag.of(bytes),
        headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-cache"],
        body: bytes, compression: .maximum)

    /// Responses with the error envelope for `statuses`, one line each at the indentation of
    /// an operation's `responses` in ``text`` (the changes of the sources share most of them:
    /// 401 and 403 from the gate, 409 without a database or for a conflict, 413 and 422 for
    /// bodies).
    private static func errors(_ statuses: Int...) -> String {
        statuses.map { ##""\##($0)": {"$ref": "#/components/responses/Error"},"## }
            .joined(separator: "\n          ")
    }

    static let text = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "PullRefresh API",
            "version": "1.0.0",
            "description": "The feed behind the PullRefresh page. Items are newest first. `version` grows by one whenever a reload changes the items. Errors use the envelope {\"error\": {\"code\", \"message\"}}. Changes to the sources are the owner's: a signed-in session (with its CSRF token in `X-CSRF-Token`) or `Authorization: Bearer <token>`."
          },
          "servers": [{"url": "/"}],
          "paths": {
            "/api/items": {
              "get": {
                "operationId": "listItems",
                "summary": "A page of items, newest first.",
                "description": "JSON by default. With `Accept: text/html` the same items as an HTML fragment (one `<li>` each, rendered by the page's partial) for loading older items in place; its `X-Feed-Next-Cursor` header carries the next page's cursor and is absent on the last page.",
                "parameters": [
                  {"name": "limit", "in": "query", "required": false, "description": "Page size, 1 to 100 (default 50).",
                   "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}},
                  {"name": "cursor", "in": "query", "required": false, "description": "The `nextCursor` of the previous page.",
                   "schema": {"type": "string", "pattern": "^c[0-9]{1,18}\\.([0-9a-f]{2}){1,1024}$"}},
                  {"name": "since", "in": "query", "required": false, "description": "A version, or a position `<epoch>-<version>` (the `epoch` and `version` of an answer): only items added after it. A position from another epoch (the shared store was emptied and seeded again since), or a version above the current one (a client of an earlier run), is read as 0: every item.",
                   "schema": {"$ref": "#/components/schemas/Since"}},
                  {"name": "lang", "in": "query", "required": false, "description": "Language of the HTML fragment (else Accept-Language).",
                   "schema": {"type": "string", "enum": ["en", "tr", "ko", "ja"]}},
                  {"name": "source", "in": "query", "required": false, "description": "A river of feeds: only the items of the source with this key (from /api/sources); a key of no source is a 404.",
                   "schema": {"type": "string", "pattern": "^[0-9a-f]{12}$"}},
                  {"name": "folder", "in": "query", "required": false, "description": "A river of feeds: only the items of the sources in this folder (`folders` of /api/sources); a folder no source is in is a 404. With `source` too: that source, which must be in the folder (else 404).",
                   "schema": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[^\\x00-\\x1f]+$"}},
                  {"name": "If-None-Match", "in": "header", "required": false, "description": "An ETag from an earlier response.",
                   "schema": {"type": "string"}}
                ],
                "responses": {
                  "200": {"description": "The page.",
                          "headers": {
                            "ETag": {"$ref": "#/components/headers/ETag"},
                            "X-Feed-Next-Cursor": {"schema": {"type": "string"}, "description": "HTML only: the cursor of the next page; absent on the last one."},
                            "X-Feed-Epoch": {"schema": {"type": "string"}, "description": "HTML only: the epoch of the version shown (JSON says it in `epoch`)."}
                          },
                          "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/ItemsPage"}},
                            "text/html": {"schema": {"type": "string"}}
                          }},
                  "304": {"description": "Not modified since the ETag given in If-None-Match.",
                          "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "404": {"$ref": "#/components/responses/Error"}
                }
              }
            },
            "/api/refresh": {
              "post": {
                "operationId": "refresh",
                "summary": "Reload from upstream (shared by concurrent callers) and report what is new.",
                "description": "Waits for the shared reload. `since` comes from the query or the JSON body; without it, `added` holds the items this reload added (newer than the version current when the request arrived). With `Accept: text/html` the answer is an HTML fragment of the added items (one `<li>` each) instead of JSON.",
                "parameters": [
                  {"name": "since", "in": "query", "required": false, "description": "As for /api/items.", "schema": {"$ref": "#/components/schemas/Since"}},
                  {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}},
                  {"name": "source", "in": "query", "required": false, "description": "A river of feeds: `items` and `added` of this source only (the reload is the whole river's).",
                   "schema": {"type": "string", "pattern": "^[0-9a-f]{12}$"}},
                  {"name": "folder", "in": "query", "required": false, "description": "A river of feeds: `items` and `added` of the sources in this folder only.",
                   "schema": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[^\\x00-\\x1f]+$"}}
                ],
                "requestBody": {
                  "required": false,
                  "content": {"application/json": {"schema": {
                    "type": "object",
                    "properties": {"since": {"type": ["integer", "null"], "minimum": 0, "maximum": 9007199254740991}}
                  }}}
                },
                "responses": {
                  "200": {
                    "description": "The feed after the reload.",
                    "headers": {
                      "X-Feed-Version": {"schema": {"type": "integer"}, "description": "The version after the reload."},
                      "X-Feed-Epoch": {"schema": {"type": "string"}, "description": "The epoch of that version: what `epoch` says in JSON."},
                      "X-Feed-Added": {"schema": {"type": "integer"}, "description": "How many items are in `added`."},
                      "X-Feed-Updated-At": {"schema": {"type": "string", "format": "date-time"}}
                    },
                    "content": {
                      "application/json": {"schema": {"$ref": "#/components/schemas/RefreshResult"}},
                      "text/html": {"schema": {"type": "string"}}
                    }
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "404": {"$ref": "#/components/responses/Error"},
                  "413": {"$ref": "#/components/responses/Error"},
                  "502": {"$ref": "#/components/responses/Error"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/api/sources": {
              "get": {
                "operationId": "listSources",
                "summary": "The feeds of the river and how their fetches go, with the folders in use.",
                "description": "Empty without real upstreams. Not cached: a source's state moves without new feed versions.",
                "responses": {
                  "200": {"description": "Every source, in configuration order, and the folders (sorted).",
                          "content": {"application/json": {"schema": {
                            "type": "object", "required": ["sources", "folders"], "additionalProperties": false,
                            "properties": {"sources": {"type": "array", "items": {"$ref": "#/components/schemas/Source"}},
                                           "folders": {"type": "array", "items": {"type": "string"}}}
                          }}}}
                }
              },
              "post": {
                "operationId": "subscribe",
                "summary": "Subscribe to a feed, or to the feed a site's page names.",
                "description": "The owner's (a session with its CSRF token, or `Authorization: Bearer`). `url` may be a feed or any page: its `<link rel=\"alternate\">` feeds, else the usual paths on its origin. Several → 409 `several_feeds` with `candidates` (post again with the chosen `url`); none → 422 `no_feed`; already subscribed → 409 `already_subscribed` with its `key`. Without a database → 409 `read_only`. The new source is fetched at once.",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                  "type": "object", "required": ["url"],
                  "properties": {"url": {"type": "string", "maxLength": 2048},
                                 "title": {"type": ["string", "null"], "maxLength": 200},
                                 "folder": {"type": ["string", "null"], "maxLength": 100}}}}}},
                "responses": {
                  "201": {"description": "Subscribed.", "headers": {"Location": {"schema": {"type": "string"}, "description": "/api/sources/{key}"}},
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Source"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  \#(errors(401, 403, 409, 413, 422))
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/api/sources/{key}": {
              "parameters": [{"name": "key", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The source's key (12 hex digits)."}],
              "get": {
                "operationId": "getSource",
                "summary": "One source, as in the list.",
                "responses": {
                  "200": {"description": "The source.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Source"}}}},
                  "404": {"$ref": "#/components/responses/Error"}
                }
              },
              "patch": {
                "operationId": "updateSource",
                "summary": "Rename a source or move it to a folder (one level).",
                "description": "The owner's. An absent field is left as it is; `null` or `\"\"` clears it (the feed's own title; no folder).",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                  "type": "object",
                  "properties": {"title": {"type": ["string", "null"], "maxLength": 200},
                                 "folder": {"type": ["string", "null"], "maxLength": 100}}}}}},
                "responses": {
                  "200": {"description": "The source after the change.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Source"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  \#(errors(401, 403, 404, 409, 413, 422))
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              },
              "delete": {
                "operationId": "unsubscribe",
                "summary": "Remove a source; its items leave the river.",
                "description": "The owner's. The operator's `--source`/`--sources` are removed only from the command line (409 `operator_source`).",
                "responses": {
                  "204": {"description": "Removed."},
                  \#(errors(401, 403, 404, 409))
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/api/sources.opml": {
              "get": {
                "operationId": "exportSources",
                "summary": "The sources as an OPML 2.0 subscription list (what other readers import).",
                "responses": {
                  "200": {"description": "One `<outline type=\"rss\">` per source; those in a folder inside an outline named for it.",
                          "content": {"text/x-opml": {"schema": {"type": "string"}}}}
                }
              },
              "post": {
                "operationId": "importSources",
                "summary": "Subscribe to every feed of an OPML document (at most 1 MiB; folders kept, one level).",
                "requestBody": {"required": true, "content": {
                  "text/x-opml": {"schema": {"type": "string"}},
                  "application/xml": {"schema": {"type": "string"}},
                  "text/xml": {"schema": {"type": "string"}}}},
                "responses": {
                  "200": {"description": "What the import did: feeds added, feeds skipped (already subscribed, or refused: `problems` says why).",
                          "content": {"application/json": {"schema": {
                            "type": "object", "required": ["added", "skipped", "problems"], "additionalProperties": false,
                            "properties": {"added": {"type": "integer", "minimum": 0}, "skipped": {"type": "integer", "minimum": 0},
                                           "problems": {"type": "array", "items": {"type": "string"}}}}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  \#(errors(401, 403, 409, 413, 422))
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/api/openapi.json": {
              "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "responses": {
                  "200": {"description": "The OpenAPI document.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}},
                          "content": {"application/json": {"schema": {"type": "object"}}}},
                  "304": {"description": "Not modified since the ETag given in If-None-Match."}
                }
              }
            },
            "/healthz": {
              "get": {
                "operationId": "health",
                "summary": "Liveness and the current version with its epoch.",
                "responses": {
                  "200": {"description": "Serving; 'degraded': reads work, refreshes cannot (Redis down).",
                    "content": {"application/json": {"schema": {
                    "type": "object", "required": ["status", "version", "epoch"], "additionalProperties": false,
                    "properties": {"status": {"enum": ["ok", "degraded"]},
                      "version": {"type": "integer", "minimum": 1},
                      "epoch": {"type": "string", "pattern": "^[0-9a-z]{1,12}$", "description": "The epoch the version counts in (base 36), as in every other answer."},
                      "redis": {"enum": ["connected", "unreachable"]},
                      "source": {"type": "object", "required": ["ok"], "additionalProperties": false,
                        "properties": {"ok": {"type": "boolean"}, "error": {"type": "string"},
                          "recovered": {"type": "string"}}},
                      "sources": {"type": "object", "required": ["ok", "failing"], "additionalProperties": false,
                        "properties": {"ok": {"type": "integer", "minimum": 0},
                          "failing": {"type": "array", "items": {"type": "object", "required": ["key", "title", "error", "since"],
                            "additionalProperties": false,
                            "properties": {"key": {"type": "string"}, "title": {"type": "string"}, "error": {"type": "string"},
                              "since": {"type": ["string", "null"], "format": "date-time"}}}}}}}
                  }}}}
                }
              }
            }
          },
          "components": {
            "headers": {
              "ETag": {"schema": {"type": "string"}, "description": "Changes with every version."}
            },
            "schemas": {
              "Item": {
                "type": "object",
                "required": ["id", "title", "body", "createdAt", "version"],
                "additionalProperties": false,
                "properties": {
                  "id": {"type": "string", "minLength": 1, "maxLength": 256, "description": "Opaque: a feed's GUID, URL or tag, or a data file's id as text."},
                  "title": {"type": "string"},
                  "body": {"type": "string"},
                  "url": {"type": "string", "description": "The item's page upstream (absolute http or https), when the source has one."},
                  "image": {"type": "string", "description": "The item's picture upstream (absolute http or https), when the source names one. Data only: the page shows it through the server, never by this URL."},
                  "createdAt": {"type": "string", "format": "date-time"},
                  "updatedAt": {"type": "string", "format": "date-time", "description": "When the item last changed in place (same id, new title, text, link, picture or date); absent while it is as first seen."},
                  "version": {"type": "integer", "minimum": 1, "description": "The version in which the item first appeared."},
                  "source": {"type": "object", "required": ["key", "title"], "additionalProperties": false,
                    "description": "A river of feeds: the item's source (its id is `<key>:<the feed's id>`).",
                    "properties": {"key": {"type": "string"}, "title": {"type": "string"}}}
                }
              },
              "Source": {
                "type": "object",
                "required": ["key", "title", "url", "siteUrl", "folder", "ok", "lastSuccess", "lastError", "failingSince", "failures", "nextFetch", "items", "origin"],
                "additionalProperties": false,
                "properties": {
                  "key": {"type": "string", "description": "Stable, from the URL: the prefix of its items' ids and the value of ?source=."},
                  "title": {"type": "string", "description": "The OPML title, else the feed's own, else its host."},
                  "url": {"type": "string", "description": "The feed's URL without user or password."},
                  "siteUrl": {"type": ["string", "null"]},
                  "folder": {"type": ["string", "null"], "description": "The folder it is in (one level), null for none: the value of ?folder=."},
                  "ok": {"type": "boolean", "description": "Whether its last fetch succeeded."},
                  "lastSuccess": {"type": ["string", "null"], "format": "date-time"},
                  "lastError": {"type": ["string", "null"]},
                  "failingSince": {"type": ["string", "null"], "format": "date-time"},
                  "failures": {"type": "integer", "minimum": 0, "description": "Failed fetches in a row."},
                  "nextFetch": {"type": ["string", "null"], "format": "date-time", "description": "When the schedule fetches it next; null without --refresh-every."},
                  "items": {"type": "integer", "minimum": 0},
                  "origin": {"type": "string", "enum": ["operator", "owner"], "description": "Who put it in the river: `operator` (the command line's --source/--sources, or any source without --database: removed only from the command line, a DELETE is 409 `operator_source`) or `owner` (added from the Feeds page, the API or an OPML upload)."}
                }
              },
              "Since": {
                "anyOf": [
                  {"type": "integer", "minimum": 0, "maximum": 9007199254740991},
                  {"type": "string", "pattern": "^[0-9a-z]{1,12}-[0-9]{1,15}$"}
                ]
              },
              "ItemsPage": {
                "type": "object",
                "required": ["version", "epoch", "updatedAt", "items", "nextCursor"],
                "additionalProperties": false,
                "properties": {
                  "version": {"type": "integer", "minimum": 1},
                  "epoch": {"type": "string", "pattern": "^[0-9a-z]{1,12}$", "description": "The epoch the version counts in (base 36); `<epoch>-<version>` is a position for `since`."},
                  "updatedAt": {"type": "string", "format": "date-time"},
                  "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
                  "nextCursor": {"type": ["string", "null"]}
                }
              },
              "RefreshResult": {
                "type": "object",
                "required": ["version", "epoch", "updatedAt", "items", "nextCursor", "added"],
                "additionalProperties": false,
                "properties": {
                  "version": {"type": "integer", "minimum": 1},
                  "epoch": {"type": "string", "pattern": "^[0-9a-z]{1,12}$", "description": "The epoch the version counts in (base 36); `<epoch>-<version>` is a position for `since`."},
                  "updatedAt": {"type": "string", "format": "date-time"},
                  "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
                  "nextCursor": {"type": ["string", "null"]},
                  "added": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}
                }
              },
              "Error": {
                "type": "object",
                "required": ["error"],
                "additionalProperties": false,
                "properties": {"error": {
                  "type": "object", "required": ["code", "message"], "additionalProperties": false,
                  "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                    "candidates": {"type": "array", "description": "With `several_feeds`: the feeds the page names.",
                      "items": {"type": "object", "required": ["url", "title", "type"], "additionalProperties": false,
                        "properties": {"url": {"type": "string"}, "title": {"type": ["string", "null"]}, "type": {"enum": ["rss", "atom", "json"]}}}},
                    "key": {"type": "string", "description": "With `already_subscribed`: the source's key."}}
                }}
              }
            },
            "responses": {
              "BadRequest": {"description": "A parameter or the body is invalid; the message names it.",
                             "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Error": {"description": "An error.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Unavailable": {"description": "Too many pending refreshes, or the shared store (Redis) is unreachable; retry after the given seconds.",
                              "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            }
          }
        }
        """#
}

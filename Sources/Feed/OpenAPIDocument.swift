/// The OpenAPI 3.1 description of the JSON API, served at `/api/openapi.json`. Kept next to
/// the code it describes; the contract tests (schemathesis) hold the two together.
enum OpenAPIDocument {
    static let bytes: [UInt8] = Array(text.utf8)

    static let text = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "PullRefresh API",
            "version": "1.0.0",
            "description": "The feed behind the PullRefresh page. Items are newest first. `version` grows by one whenever a reload changes the items. Errors use the envelope {\"error\": {\"code\", \"message\"}}."
          },
          "servers": [{"url": "/"}],
          "paths": {
            "/api/items": {
              "get": {
                "operationId": "listItems",
                "summary": "A page of items, newest first.",
                "parameters": [
                  {"name": "limit", "in": "query", "required": false, "description": "Page size, 1 to 100 (default 50).",
                   "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}},
                  {"name": "cursor", "in": "query", "required": false, "description": "The `nextCursor` of the previous page.",
                   "schema": {"type": "string", "pattern": "^[0-9]{1,18}\\.[1-9][0-9]{0,17}$"}},
                  {"name": "since", "in": "query", "required": false, "description": "A version: only items added after it.",
                   "schema": {"type": "integer", "minimum": 0, "maximum": 9007199254740991}},
                  {"name": "If-None-Match", "in": "header", "required": false, "description": "An ETag from an earlier response.",
                   "schema": {"type": "string"}}
                ],
                "responses": {
                  "200": {"description": "The page.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}},
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ItemsPage"}}}},
                  "304": {"description": "Not modified since the ETag given in If-None-Match.",
                          "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}},
                  "400": {"$ref": "#/components/responses/BadRequest"}
                }
              }
            },
            "/api/refresh": {
              "post": {
                "operationId": "refresh",
                "summary": "Reload from upstream (shared by concurrent callers) and report what is new.",
                "description": "Waits for the shared reload. `since` comes from the query or the JSON body; without it, `added` is empty. With `Accept: text/html` the answer is an HTML fragment of the added items (one `<li>` each) instead of JSON.",
                "parameters": [
                  {"name": "since", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 0, "maximum": 9007199254740991}},
                  {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}}
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
                      "X-Feed-Added": {"schema": {"type": "integer"}, "description": "How many items are newer than `since`."},
                      "X-Feed-Updated-At": {"schema": {"type": "string", "format": "date-time"}}
                    },
                    "content": {
                      "application/json": {"schema": {"$ref": "#/components/schemas/RefreshResult"}},
                      "text/html": {"schema": {"type": "string"}}
                    }
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "413": {"$ref": "#/components/responses/Error"},
                  "502": {"$ref": "#/components/responses/Error"},
                  "503": {"$ref": "#/components/responses/Unavailable"}
                }
              }
            },
            "/healthz": {
              "get": {
                "operationId": "health",
                "summary": "Liveness and the current version.",
                "responses": {
                  "200": {"description": "Serving; 'degraded': reads work, refreshes cannot (Redis down).",
                    "content": {"application/json": {"schema": {
                    "type": "object", "required": ["status", "version"], "additionalProperties": false,
                    "properties": {"status": {"enum": ["ok", "degraded"]},
                      "version": {"type": "integer", "minimum": 1},
                      "redis": {"enum": ["connected", "unreachable"]}}
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
                  "id": {"type": "integer", "minimum": 1},
                  "title": {"type": "string"},
                  "body": {"type": "string"},
                  "createdAt": {"type": "string", "format": "date-time"},
                  "version": {"type": "integer", "minimum": 1, "description": "The version in which the item first appeared."}
                }
              },
              "ItemsPage": {
                "type": "object",
                "required": ["version", "updatedAt", "items", "nextCursor"],
                "additionalProperties": false,
                "properties": {
                  "version": {"type": "integer", "minimum": 1},
                  "updatedAt": {"type": "string", "format": "date-time"},
                  "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
                  "nextCursor": {"type": ["string", "null"]}
                }
              },
              "RefreshResult": {
                "type": "object",
                "required": ["version", "updatedAt", "items", "nextCursor", "added"],
                "additionalProperties": false,
                "properties": {
                  "version": {"type": "integer", "minimum": 1},
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
                  "properties": {"code": {"type": "string"}, "message": {"type": "string"}}
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

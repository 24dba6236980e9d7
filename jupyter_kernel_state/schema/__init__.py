"""The REST contract: JSON Schema of the payloads and the OpenAPI document built from it."""

"""The mock server: answers requests from an API description."""

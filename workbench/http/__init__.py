"""Calling an API the way an agent does: tool calls in, HTTP requests out, results and feedback back."""

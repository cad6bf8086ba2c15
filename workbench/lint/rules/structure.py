"""Structure: what must hold for a spec to become callable tools at all."""

from __future__ import annotations

from workbench import lazy_pattern
from workbench.lint.registry import Report, rule

_TEMPLATE = lazy_pattern(r"\{([^{}]+)\}")


@rule("unresolved-ref", "error", "parameters", "every $ref resolves (remote and out-of-tree refs are refused)",
      fix="Correct the `$ref` so it points at an existing definition in this file or a local file beside it "
          "(remote refs are refused).")
def unresolved_ref(spec, context):
    for problem in spec.problems:
        if problem.code.startswith("ref-"):
            yield Report(problem.message, spec.documents.get(problem.file, spec.root), problem.pointer)


@rule("path-params-mismatch", "error", "parameters", "path template variables and path parameters agree",
      fix="Declare one `in: path` parameter, `required: true`, for each `{name}` in the path template, and no "
          "path parameter the template does not have.")
def path_params_mismatch(spec, context):
    for op in spec.operations:
        in_template = _TEMPLATE.findall(op.path)
        declared = [p.name for p in op.parameters if p.location == "path"]
        for name in in_template:
            if name not in declared:
                yield Report(f"{op.label()}: {{{name}}} in the path has no path parameter", op.origin.document,
                             op.origin.pointer)
        for param in op.parameters:
            if param.location == "path" and param.name not in in_template:
                yield Report(f"path parameter {param.name!r} does not appear in {op.path}", param.origin.document,
                             param.origin.pointer)


@rule("path-colon-parameter", "error", "parameters", "path parameters are written {name}, not :name",
      fix="Write the path parameter as `{name}` in the path (`/users/{id}`, not `/users/:id`) and declare it "
          "`in: path`.")
def path_colon_parameter(spec, context):
    for op in spec.operations:
        for name in op.colon_parameters():
            yield Report(f"{op.label()}: :{name} is not a template variable (OpenAPI writes {{{name}}}): the "
                         f"path parameter {name!r} reaches nothing and the request goes to the literal path",
                         op.origin.document, op.origin.pointer)


@rule("servers-missing", "warn", "safety", "the spec names its servers (or host)",
      fix="Add a `servers` entry with the API's base URL (`host` and `basePath` in Swagger 2.0).")
def servers_missing(spec, context):
    if not spec.servers or all(s.url in ("", "/") for s in spec.servers):
        pointer = "/servers" if spec.root.has("/servers") else ""
        yield Report("no servers: calls and the mock need a base URL", spec.root, pointer)


@rule("security-undeclared", "warn", "safety", "security schemes are declared",
      fix="Declare the security schemes under `components.securitySchemes` (`securityDefinitions` in 2.0) and "
          "name them in `security`.")
def security_undeclared(spec, context):
    if not spec.components.security_schemes:
        yield Report("no security schemes are declared: the harness cannot tell how to authenticate", spec.root, "")
        return
    for op in spec.operations:
        for requirement in op.security or spec.security:
            for name in requirement:
                if name not in spec.components.security_schemes:
                    yield Report(f"{op.label()} requires security scheme {name!r}, which is not declared",
                                 op.origin.document, op.origin.pointer)


@rule("operation-tags-missing", "info", "scope", "operations have tags (the natural scoping unit)",
      fix="Give the operation a `tags` entry; tags are how a tool set is scoped (`tools: {tags: [...]}`).")
def operation_tags_missing(spec, context):
    tagged = sum(1 for op in spec.operations if op.tags)
    untagged = len(spec.operations) - tagged
    many = len(spec.operations) > int(context.config.threshold("tool-budget"))
    if tagged <= untagged and not many:
        return  # tags are not how this spec is organised, and one tool set holds it all: nothing is left out
    for op in spec.operations:
        if not op.tags:
            why = (f"{tagged} of {len(spec.operations)} operations have tags, and a tool set scoped by tag leaves "
                   "this one out" if tagged > untagged
                   else f"{len(spec.operations)} operations need scoping, and tags are how a tool set is scoped")
            yield Report(f"{op.label()} has no tags: {why}; give it one", op.origin.document, op.origin.pointer)

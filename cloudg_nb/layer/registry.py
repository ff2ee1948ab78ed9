"""Registry: the catalog of specs a layer serves, with decorators to register handlers.

Tools and prompts are keyed by name, resources by URI, templates by template string.
``find_template`` tries the longest template string first, so ``.../{+ref}/neighbors`` wins
over ``.../{+ref}``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar, overload

from .specs import (
    AnySpec,
    PromptArgument,
    PromptSpec,
    ResourceSpec,
    ResourceTemplateSpec,
    ToolSpec,
)

__all__ = ["Registry"]

F = TypeVar("F", bound=Callable[..., Any])


class Registry:
    """Named collections of tool, resource, template and prompt specs."""

    def __init__(self) -> None:
        self.tools: dict[str, ToolSpec] = {}
        self.resources: dict[str, ResourceSpec] = {}
        self.templates: dict[str, ResourceTemplateSpec] = {}
        self.prompts: dict[str, PromptSpec] = {}
        self._templates_by_length: list[ResourceTemplateSpec] | None = None

    def __len__(self) -> int:
        return len(self.tools) + len(self.resources) + len(self.templates) + len(self.prompts)

    def __iter__(self) -> Iterator[AnySpec]:
        yield from self.tools.values()
        yield from self.resources.values()
        yield from self.templates.values()
        yield from self.prompts.values()

    def __repr__(self) -> str:
        return (
            f"Registry(tools={len(self.tools)}, resources={len(self.resources)}, "
            f"templates={len(self.templates)}, prompts={len(self.prompts)})"
        )

    def _table(self, spec: AnySpec) -> tuple[dict[str, Any], str]:
        if isinstance(spec, ToolSpec):
            return self.tools, spec.name
        if isinstance(spec, ResourceSpec):
            return self.resources, spec.uri
        if isinstance(spec, ResourceTemplateSpec):
            return self.templates, spec.uri_template
        if isinstance(spec, PromptSpec):
            return self.prompts, spec.name
        raise TypeError(f"Cannot register a {type(spec).__name__}; expected a spec")

    def add(self, spec: AnySpec, *, replace: bool = False) -> AnySpec:
        """Add a spec; ValueError on a duplicate key unless ``replace``."""
        table, key = self._table(spec)
        if key in table and not replace:
            raise ValueError(
                f"A {spec.kind} named {key!r} is already registered; pass replace=True "
                "to overwrite it"
            )
        table[key] = spec
        if isinstance(spec, ResourceTemplateSpec):
            self._templates_by_length = None
        return spec

    def remove(self, spec: AnySpec) -> None:
        table, key = self._table(spec)
        table.pop(key, None)
        self._templates_by_length = None

    def merge(self, other: Registry, *, replace: bool = False) -> Registry:
        """Add every spec of ``other``; duplicates raise unless ``replace``."""
        if not replace:
            for spec in other:
                table, key = self._table(spec)
                if key in table:
                    raise ValueError(
                        f"Cannot merge: a {spec.kind} named {key!r} exists in both registries"
                    )
        for spec in other:
            self.add(spec, replace=True)
        return self

    def find_template(self, uri: str) -> tuple[ResourceTemplateSpec, dict[str, str]] | None:
        """The first template matching ``uri`` (longest template string first)."""
        ordered = self._templates_by_length
        if ordered is None:
            ordered = sorted(self.templates.values(), key=lambda t: -len(t.uri_template))
            self._templates_by_length = ordered
        for template in ordered:
            variables = template.match(uri)
            if variables is not None:
                return template, variables
        return None

    # -- decorators -------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /, **options: Any) -> F: ...

    @overload
    def tool(self, fn: None = None, /, **options: Any) -> Callable[[F], F]: ...

    def tool(self, fn: F | None = None, /, **options: Any) -> Any:
        """Register a tool handler: ``@reg.tool`` or ``@reg.tool(name=..., ...)``."""

        def register(func: F) -> F:
            name = options.pop("name", None) or func.__name__
            replace = options.pop("replace", False)
            self.add(ToolSpec(name=name, handler=func, **options), replace=replace)
            return func

        return register(fn) if fn is not None else register

    def resource(self, uri: str, **options: Any) -> Callable[[F], F]:
        """Register a static resource handler ``fn(ctx)`` at ``uri``."""

        def register(func: F) -> F:
            name = options.pop("name", None) or func.__name__
            replace = options.pop("replace", False)
            self.add(ResourceSpec(name=name, uri=uri, handler=func, **options), replace=replace)
            return func

        return register

    def resource_template(self, uri_template: str, **options: Any) -> Callable[[F], F]:
        """Register a template handler ``fn(ctx, **variables)`` for ``uri_template``."""

        def register(func: F) -> F:
            name = options.pop("name", None) or func.__name__
            replace = options.pop("replace", False)
            spec = ResourceTemplateSpec(
                name=name, uri_template=uri_template, handler=func, **options
            )
            self.add(spec, replace=replace)
            return func

        return register

    @overload
    def prompt(self, fn: F, /, **options: Any) -> F: ...

    @overload
    def prompt(self, fn: None = None, /, **options: Any) -> Callable[[F], F]: ...

    def prompt(self, fn: F | None = None, /, **options: Any) -> Any:
        """Register a prompt handler: ``@reg.prompt`` or ``@reg.prompt(arguments=[...])``."""

        def register(func: F) -> F:
            name = options.pop("name", None) or func.__name__
            replace = options.pop("replace", False)
            args = [
                a if isinstance(a, PromptArgument) else PromptArgument(**a)
                for a in options.pop("arguments", [])
            ]
            self.add(PromptSpec(name=name, handler=func, arguments=args, **options),
                     replace=replace)
            return func

        return register(fn) if fn is not None else register

"""What every model offers the rest of the workbook, in one shape.

Each model package ends with a :class:`ModelSpec` named ``MODEL``; its
heuristic (``kernel_workbook.heuristics.<name>``) adds the workloads that run
on it, and the sweep engine (:mod:`kernel_workbook.sweep`), the explorer
builder (:mod:`kernel_workbook.ui.explorer`), ``kwb sweep`` and the tests
reach every model through that spec
(:func:`kernel_workbook.heuristic.model`), never through a model's internals:

* ``params`` -- the knob declaration (a :class:`~.knobs.Knobs` dataclass);
* ``variants`` -- the kernels of the thread as named flag sets (knob -> value);
* ``workloads`` -- named workload builders (``name -> callable(**kw)``), the
  heuristic's;
* ``simulate(params, workload, seed=0, engine="jit") -> result``;
* ``summary(result) -> dict`` -- the run's scalar outputs, named as the kernel
  counts them (``pgscan_kswapd_Normal``, ``numa_pte_updates``, ``r_await``...),
  which is what a sweep keeps of a run;
* ``layout`` and ``pack(params, workload)`` -- the generated parameter layout
  and the very function ``simulate`` uses to fill the kernel's parameter
  arrays, so that one test checks every knob of every model lands in its
  slot in the kernel's units (``tests/test_knob_packing.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import WorkbookParameterError


@dataclass(frozen=True)
class ModelSpec:
    name: str
    title: str
    params: type  # the Knobs dataclass of one run
    simulate: Callable  # simulate(params, workload, seed=0, engine="jit") -> result
    summary: Callable  # result -> dict of scalar outputs named as the kernel counts them
    variants: dict = field(default_factory=dict)  # kernel name -> {knob: value}
    workloads: dict = field(default_factory=dict)  # workload name -> builder(**kw) (the heuristic's)
    default_variant: str | None = None
    default_workload: str | None = None
    base: Callable | None = None  # variant name -> params (when a variant is more than knob overrides)
    layout: Any = None  # the ParamLayout generated from ``params`` (what the kernel reads)
    pack: Callable | None = None  # (params, workload) -> (int array, float array): the arrays simulate() passes
    doc: str = ""

    def knobs(self) -> dict:
        """The declared knobs of the model (name -> :class:`~.knobs.Knob`)."""
        return self.params.declared()

    def params_for(self, variant: str | None = None, **knobs) -> Any:
        """The parameters of a named kernel with knobs changed by name."""
        variant = variant or self.default_variant
        if self.base is not None:
            p = self.base(variant)
        else:
            if variant is not None and variant not in self.variants:
                raise WorkbookParameterError("variant", variant, "one of " + ", ".join(self.variants))
            p = self.params()
            if variant is not None and self.variants[variant]:
                p = p.with_(**self.variants[variant])
        return p.with_(**knobs) if knobs else p

    def workload(self, name: str | None = None, **kw) -> Any:
        name = name or self.default_workload
        if name not in self.workloads:
            raise WorkbookParameterError("workload", name, "one of " + ", ".join(self.workloads))
        builder = self.workloads[name]
        return builder(**kw)

    def run(self, variant: str | None = None, workload: str | None = None, seed=0, knobs: dict | None = None,
            workload_kw: dict | None = None, engine: str = "jit") -> dict:
        """One run, summarised: ``{output: value}`` (what a sweep stores)."""
        p = self.params_for(variant, **(knobs or {}))
        w = self.workload(workload, **(workload_kw or {}))
        return self.summary(self.simulate(p, w, seed=seed, engine=engine))


__all__ = ["ModelSpec"]

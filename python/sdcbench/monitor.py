"""sdcbench's training detectors inside an ordinary PyTorch loop.

    mon = Monitor(model, detectors=["nonfinite_grad", "folding_w1", "feature_value"],
                  fault={"site": "grad", "fault": "bitflip", "bit": "exp2", "when": "specific(3)", "rank": "0"})
    for trial, faulty in mon.plan(faulty=4, clean=4):
        with mon.episode(faulty, trial, steps=8):
            model = build_model(); opt = torch.optim.AdamW(model.parameters())   # the user's own
            for step in range(8):
                opt.zero_grad(); loss = loss_fn(model(x[step]), y[step]); loss.backward()
                mon.after_backward(step, loss)   # inject (when the fault fires), check, all-reduce
                opt.step()
    mon.write("monitor.json")                     # a result set: sdcbench show / compare / report

after_backward gathers every rank's loss and flat fp32 gradient before the
all-reduce (one process, or torch.distributed with gloo: it does the
all-reduce itself, the mean over ranks in rank order, and writes it back to
each parameter's .grad), injects the monitor's fault into the named rank's
gradient when it fires, and runs the detectors on rank 0 through the C++
core (the training detectors of `sdcbench list detectors`, scored per
episode as the campaigns score them). The fault comes from a suite's fault
axes (faults_from_suite) or a dict of the same names; `site` is "grad" (the
rank's gradient before the all-reduce), `element` "uniform".
"""
import contextlib
import itertools
import json
import sys
import time

import numpy as np
import torch
import torch.distributed as dist

from . import _sdcbench
from . import inject

_AXES = ("site", "fault", "bit", "when", "rank", "element")


def faults_from_suite(path):
    """The fault of every cell of a training suite's axes (site, fault, bit,
    when, rank, element): a list of dicts, in the suite's axis order."""
    with open(path) as f:
        suite = json.load(f)
    axes = suite.get("axes", {})
    names = [a for a in _AXES if a in axes]
    return [dict(zip(names, values)) for values in itertools.product(*(axes[a] for a in names))]


def _fault_step(when):
    if isinstance(when, int):
        return when
    if isinstance(when, str) and when.startswith("specific(") and when.endswith(")"):
        return int(when[len("specific("):-1])
    raise ValueError(f"Monitor: fault.when: expected \"specific(N)\" (the step it fires at) or an int; got {when!r}")


class Monitor:
    def __init__(self, model, detectors, fault=None, name="monitor", description="", seed=0):
        self.model = model
        self.params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        self.distributed = dist.is_available() and dist.is_initialized()
        self.ranks = dist.get_world_size() if self.distributed else 1
        self.rank = dist.get_rank() if self.distributed else 0
        self.fault = {"site": "grad", "element": "uniform", "rank": "0", **(fault or {})}
        if self.fault["site"] != "grad" or self.fault["element"] != "uniform":
            raise ValueError("Monitor: fault: site \"grad\" and element \"uniform\" are what a monitored loop can inject")
        self.fault_step = _fault_step(self.fault.get("when", "specific(0)")) if fault else None
        self.fault_rank = int(self.fault["rank"])
        if not 0 <= self.fault_rank < self.ranks:
            raise ValueError(f"Monitor: fault.rank: expected a rank below {self.ranks}; got {self.fault_rank}")
        entries = [{"name": d} if isinstance(d, str) else d for d in detectors]
        axes = {k: str(v) for k, v in self.fault.items()} if fault else {"site": "none"}
        meta = {"name": name, "description": description, "seed": seed, "axes": axes}
        self.seed = seed
        self.started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.core = None
        if self.rank == 0:
            self.core = _sdcbench.Monitor(json.dumps(entries), [n for n, _ in self.params],
                                          [list(p.shape) for _, p in self.params], self.ranks, json.dumps(meta))
        self.faulty = False
        self.trial = 0
        self.records = []

    def plan(self, faulty, clean):
        """(trial, faulty) for the episodes to run: faulty ones first, as a campaign numbers them."""
        return [(t, True) for t in range(faulty)] + [(t, False) for t in range(clean)]

    @contextlib.contextmanager
    def episode(self, faulty, trial, steps):
        if faulty and self.fault_step is None:
            raise ValueError("Monitor: a faulty episode needs a fault")
        self.faulty, self.trial = faulty, trial
        if self.core:
            self.core.begin(faulty, trial, steps)
        yield self
        if self.core:
            self.core.end()

    def _flat_grads(self):
        return torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).detach().reshape(-1).to(torch.float32)
                          for _, p in self.params])

    def after_backward(self, step, loss):
        """Call after loss.backward(), before optimizer.step(). Returns rank 0's
        verdicts this step ([{label, flagged, rank, score}]; [] on other ranks)."""
        flat = self._flat_grads().contiguous()
        faults = []
        if self.faulty and step == self.fault_step and self.rank == self.fault_rank:
            seed = (self.seed * 1_000_003 + self.trial) * 1_009 + step  # one stream per (seed, trial, step)
            recs = inject(flat.numpy(), "fp32", fault=self.fault.get("fault", "bitflip"), bit=self.fault.get("bit", "none"),
                          site="uniform", seed=seed)
            self.records.extend({"trial": self.trial, "step": step, "rank": self.rank, **r} for r in recs)
            faults = [(self.rank, r["index"], r["old_value"], r["new_value"]) for r in recs if r["applied"]]
        loss_t = torch.tensor([float(loss)], dtype=torch.float64)
        if self.distributed:
            all_grads = [torch.empty_like(flat) for _ in range(self.ranks)]
            all_losses = [torch.empty_like(loss_t) for _ in range(self.ranks)]
            dist.all_gather(all_grads, flat)
            dist.all_gather(all_losses, loss_t)
            # Rank 0 scores: it learns from the fault's rank what was injected (index, old, new values).
            hit = torch.zeros(4, dtype=torch.float64)  # [injected?, index, old value, new value]
            if faults:
                hit[:] = torch.tensor([1.0, *faults[0][1:]], dtype=torch.float64)
            dist.broadcast(hit, src=self.fault_rank)
            if self.rank == 0 and self.rank != self.fault_rank:
                faults = [(self.fault_rank, int(hit[1]), float(hit[2]), float(hit[3]))] if hit[0] > 0 else []
        else:
            all_grads, all_losses = [flat], [loss_t]
        verdicts = []
        if self.core:
            grads = torch.stack(all_grads).numpy()
            verdicts = self.core.observe(step, torch.cat(all_losses).numpy(), grads, faults)
        mean = all_grads[0].clone()
        for g in all_grads[1:]:
            mean += g
        mean /= float(self.ranks)
        at = 0
        for _, p in self.params:
            n = p.numel()
            if p.grad is not None:
                p.grad.copy_(mean[at:at + n].view_as(p).to(p.grad.dtype))
            at += n
        return verdicts

    def write(self, path):
        """The result set of every episode (rank 0; other ranks write nothing)."""
        if self.core:
            self.core.write(str(path), ["python"] + sys.argv, self.started)

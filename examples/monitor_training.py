"""sdcbench's training detectors on an ordinary PyTorch loop (sdcbench.monitor).

A small MLP learns a synthetic regression; the monitor runs 000's folding +
W1, 003's feature value and NPU_ASD check, 002's gradient-norm outlier,
OLMo-core's stability monitor and the NaN/Inf baseline on every step, and
injects an exponent-bit flip into one rank's gradient at step 3 of each
faulty episode. It writes a result set that `sdcbench show`, `compare` and
`report` read.

    python3 examples/monitor_training.py --out monitor.json                # one process
    python3 examples/monitor_training.py --ranks 2 --out monitor.json      # torch.distributed, gloo on CPU
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from sdcbench.monitor import Monitor

DETECTORS = ["nonfinite_grad", {"name": "folding_w1", "label": "folding_w1 (000)"}, {"name": "feature_value", "label": "feature_value (003)"},
             "npu_asd", {"name": "grad_norm_outlier", "label": "grad_norm_outlier (002)"}, "stability_monitor"]


def train(rank, ranks, args):
    if ranks > 1:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(args.port))
        dist.init_process_group("gloo", rank=rank, world_size=ranks)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.GELU(), torch.nn.Linear(64, 1))
    fault = {"site": "grad", "fault": "bitflip", "bit": args.bit, "when": "specific(3)", "rank": str(ranks - 1)}
    mon = Monitor(model, DETECTORS, fault=fault, name="monitor_example", seed=args.seed,
                  description=f"examples/monitor_training.py: an MLP 16-64-1 on a synthetic regression, {ranks} rank(s), "
                              f"one {args.bit} flip in rank {ranks - 1}'s gradient at step 3 of each faulty episode")
    for trial, faulty in mon.plan(faulty=args.faulty, clean=args.clean):
        with mon.episode(faulty, trial, steps=args.steps):
            torch.manual_seed(1000 + trial)  # each episode its own initialization and data; the same on every rank
            model.load_state_dict({k: torch.randn_like(v) * 0.2 for k, v in model.state_dict().items()})
            opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
            g = torch.Generator().manual_seed(trial * 100 + rank)  # each rank its own batches
            for step in range(args.steps):
                x = torch.randn(32, 16, generator=g)
                y = x[:, :4].sum(dim=1, keepdim=True).sin()
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                mon.after_backward(step, loss)
                opt.step()
    mon.write(args.out)
    if ranks > 1:
        dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--faulty", type=int, default=6)
    p.add_argument("--clean", type=int, default=6)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--bit", default="exp1")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--port", type=int, default=29517)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    torch.set_num_threads(1)
    if args.ranks > 1:
        mp.spawn(train, args=(args.ranks, args), nprocs=args.ranks, join=True)
    else:
        train(0, 1, args)


if __name__ == "__main__":
    main()

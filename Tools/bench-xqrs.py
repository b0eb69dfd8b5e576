"""Noise-stress benchmark: tscope's QRS detector vs wfdb-python's XQRS.

Noise-stressed records are built the way the MIT-BIH Noise Stress Test Database
was (Moody, Muldrow & Mark, "A noise stress test for arrhythmia detectors",
Computers in Cardiology 1984): the first 5 minutes clean, then noise in
alternating 2-minute segments (5-7, 9-11, 13-15, ... min), one SNR per record
(24, 12, 6, 0 dB). SNR as WFDB's nst computes it: signal power = (mean QRS
peak-to-peak amplitude)^2 / 8, noise power = the noise's variance. The noise is
synthetic (NSTDB's recorded noise is not in this project): "em", electrode-
motion-like (1-10 Hz band-limited noise plus decaying baseline steps at random
times), and "ma", muscle-like (20-100 Hz band-limited noise with a slowly
varying envelope). Seeded (BENCH_SEED, 11 by default), so every run builds the
same records.

Both detectors see the same lead 0 (MLII) signal in mV; both are scored here
the same way as tscope's BeatScore: each reference beat takes the nearest
unmatched detection within 150 ms. F1 = 2TP / (2TP + FP + FN).
"""
import os, subprocess, sys, tempfile
import numpy as np
import wfdb
from wfdb import processing
from scipy import signal as sps

BEATS = set("NLRaVFJASEj/Qfenr?B")


def score(reference, detections, window):
    detections = np.sort(np.asarray(detections, dtype=int))
    used = np.zeros(len(detections), dtype=bool)
    tp = 0
    start = 0
    for beat in reference:
        while start < len(detections) and detections[start] < beat - window:
            start += 1
        best = None
        index = start
        while index < len(detections) and detections[index] <= beat + window:
            if not used[index] and (best is None or abs(detections[index] - beat) < abs(detections[best] - beat)):
                best = index
            index += 1
        if best is not None:
            used[best] = True
            tp += 1
    return tp, len(detections) - tp, len(reference) - tp


def band(noise, low, high, fs):
    high = min(high, 0.45 * fs)
    sos = sps.butter(2, [low, high], btype="band", fs=fs, output="sos")
    return sps.sosfilt(sos, noise)


def make_noise(kind, n, fs, rng):
    if kind == "em":
        noise = band(rng.standard_normal(n), 1, 10, fs)
        steps = np.zeros(n)
        times = np.cumsum(rng.exponential(2.0 * fs, size=int(n / fs)))
        decay = np.exp(-np.arange(int(1.5 * fs)) / (0.3 * fs))
        for t in times.astype(int):
            if t >= n:
                break
            end = min(n, t + len(decay))
            steps[t:end] += rng.standard_normal() * 3 * decay[: end - t]
        noise = noise / noise.std() + steps / max(steps.std(), 1e-9)
    else:
        noise = band(rng.standard_normal(n), 20, 100, fs)
        envelope = 0.5 + np.abs(band(rng.standard_normal(n), 0.05, 1, fs))
        noise = noise * envelope / (envelope.std() + 1)
    return (noise - noise.mean()) / noise.std()


def qrs_peak_to_peak(x, beats, fs):
    half = int(0.05 * fs)
    amplitudes = [np.ptp(x[b - half: b + half]) for b in beats if b - half >= 0 and b + half < len(x)]
    return float(np.mean(amplitudes))


def main():
    tscope, records = sys.argv[1], sys.argv[2:]
    rows = []
    for path in records:
        record = wfdb.rdrecord(path, channels=[0])
        annotation = wfdb.rdann(path, "atr")
        fs = record.fs
        x = record.p_signal[:, 0].astype(float)
        reference = np.array([s for s, sym in zip(annotation.sample, annotation.symbol) if sym in BEATS])
        window = int(round(0.150 * fs))
        signal_power = qrs_peak_to_peak(x, reference, fs) ** 2 / 8
        mask = np.zeros(len(x))
        minute = int(60 * fs)
        for start in range(5 * minute, len(x), 4 * minute):
            mask[start: start + 2 * minute] = 1
        name = os.path.basename(path)
        # BENCH_CASES="em:6,ma:0" runs only those (a quick look while tuning)
        # BENCH_SEED=31 draws other noise (em from that seed, ma from the next); 11 by default
        seed = int(os.environ.get("BENCH_SEED", "11"))
        wanted = os.environ.get("BENCH_CASES")
        for kind in ("em", "ma"):
            unit_noise = make_noise(kind, len(x), fs, np.random.default_rng(seed if kind == "em" else seed + 1))
            for snr in (24, 12, 6, 0):
                if wanted and f"{kind}:{snr}" not in wanted.split(","):
                    continue
                noise_rms = np.sqrt(signal_power / 10 ** (snr / 10))
                noisy = x + mask * unit_noise * noise_rms
                with tempfile.TemporaryDirectory() as work:
                    stem = f"{name}{kind}{snr:02d}"
                    wfdb.wrsamp(stem, fs=fs, units=["mV"], sig_name=["MLII"], p_signal=noisy[:, None],
                                fmt=["16"], adc_gain=[200.0], baseline=[0], write_dir=work)
                    out = os.path.join(work, "beats.csv")
                    subprocess.run([tscope, "ecg", "detect", os.path.join(work, stem), "--out", out],
                                   check=True, stderr=subprocess.DEVNULL)
                    ours = np.loadtxt(out, delimiter=",", skiprows=1, usecols=0, ndmin=1).astype(int)
                    # the signal as tscope read it (16-bit at 200 adu/mV), for a like-for-like XQRS
                    stored = wfdb.rdrecord(os.path.join(work, stem)).p_signal[:, 0]
                runs = [("tscope", ours)]
                if not os.environ.get("BENCH_SKIP_XQRS"):
                    xqrs = processing.XQRS(sig=stored, fs=fs)
                    xqrs.detect(verbose=False)
                    runs.append(("XQRS", xqrs.qrs_inds))
                for detector, detections in runs:
                    tp, fp, fn = score(reference, detections, window)
                    f1 = 2 * tp / (2 * tp + fp + fn)
                    rows.append((name, kind, snr, detector, tp, fp, fn, tp / (tp + fn), tp / max(1, tp + fp), f1))
                    print(f"{name} {kind} {snr:2d} dB {detector:6s} TP {tp} FP {fp} FN {fn} F1 {f1:.4f}", file=sys.stderr)
    if os.environ.get("BENCH_SKIP_XQRS"):
        return
    print("| record | noise | SNR | tscope Se / +P | tscope F1 | XQRS Se / +P | XQRS F1 |")
    print("|---|---|---|---|---|---|---|")
    for i in range(0, len(rows), 2):
        a, b = rows[i], rows[i + 1]
        print(f"| {a[0]} | {a[1]} | {a[2]} dB | {100*a[7]:.2f} / {100*a[8]:.2f} % | {a[9]:.4f} | "
              f"{100*b[7]:.2f} / {100*b[8]:.2f} % | {b[9]:.4f} |")


if __name__ == "__main__":
    main()

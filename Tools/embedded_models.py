"""Writes a trained model's JSON where the build embeds it.

The trainers (Tools/train-ecg-verdict, Tools/train-beat-model, Tools/train-af-rr) write
each model as a data file, Sources/CECGModels/models/NAME.json, which
Sources/CECGModels/embed.S assembles into the binary, and refresh that file's
sha256 line in embed.S: a build does not track the data file itself, the changed
line makes it assemble embed.S again. The Swift file beside each model keeps its
provenance and settings only (a few kilobytes a retraining).
"""
import hashlib
import os
import re

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(REPOSITORY, "Sources", "CECGModels", "models")
EMBED = os.path.join(REPOSITORY, "Sources", "CECGModels", "embed.S")
NAMES = ("verdict-trees", "verdict-network", "ventricular-beat", "rr-af")


def write_model(name, text):
    """Writes models/NAME.json (text, a JSON document, with a final newline) and its hash in embed.S."""
    if name not in NAMES:
        raise SystemExit(f"embedded_models: unknown model {name!r} (expected one of {', '.join(NAMES)})")
    data = text.rstrip("\n").encode("utf-8") + b"\n"
    path = os.path.join(MODELS, f"{name}.json")
    with open(path, "wb") as file:
        file.write(data)
    digest = hashlib.sha256(data).hexdigest()
    with open(EMBED, encoding="utf-8") as file:
        assembly = file.read()
    pattern = re.compile(rf"^// sha256 {re.escape(name)}\.json \S+$", re.M)
    if len(pattern.findall(assembly)) != 1:
        raise SystemExit(f"embedded_models: {EMBED} has no single '// sha256 {name}.json' line")
    assembly = pattern.sub(f"// sha256 {name}.json {digest}", assembly)
    with open(EMBED, "w", encoding="utf-8") as file:
        file.write(assembly)
    return os.path.relpath(path, REPOSITORY)

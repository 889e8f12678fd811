#!/usr/bin/env python3
"""Writes tests/serving/conversation_fixtures/prompts.json from MLC-LLM's own source.

MLC's conversation protocol (python/mlc_llm/protocol/conversation_protocol.py) and its preset
templates (python/mlc_llm/conversation_template/*.py) are imported from an MLC-LLM checkout (a
git directory and a commit: 79d603f is the version pipesplit follows), with stand-ins for the two
modules they import and do not need here (the serving data classes, used only for images). For
every template pipesplit knows by name the fixture holds MLC's JSON of it (`to_json_dict`), and
for every conversation below the prompt text MLC's chat endpoint builds: the request's system
message replaces the template's, the other messages are appended, then an empty assistant
message, and `as_prompt()` joins them (engine_base.process_chat_completion_request). The tests
read the fixture, never MLC.

Usage: tools/make_conversation_fixtures.py MLC_GIT_DIR COMMIT OUT_JSON
"""

import copy
import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path

# The templates pipesplit carries (src/serve/text/conversation_presets.cc).
NAMES = [
    "LM",
    "llama-2",
    "llama-3",
    "llama-3_1",
    "codellama_instruct",
    "mistral_default",
    "chatml",
    "chatml_nosystem",
    "qwen2",
    "tinyllama_v1_0",
    "phi-2",
    "phi-3",
    "gpt2",
]

# Conversations as OpenAI messages; "system" only first, as MLC requires.
CONVERSATIONS = {
    "multi-turn-with-system": [
        {"role": "system", "content": "You are a terse assistant. Answer in one line."},
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "Paris."},
        {"role": "user", "content": "And of Italy?"},
        {"role": "assistant", "content": "Rome."},
        {"role": "user", "content": "Name a river in each."},
    ],
    "one-user-message": [{"role": "user", "content": "Hello!"}],
    "multi-turn-default-system": [
        {"role": "user", "content": "Write 2 + 2."},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "Now   spaces\tand\nlines."},
    ],
    "empty-system": [
        {"role": "system", "content": ""},
        {"role": "user", "content": "Übersetze: naïve café 🍵 日本語"},
    ],
    "assistant-last": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Count to three."},
        {"role": "assistant", "content": "1, 2,"},
    ],
}


def load_mlc(git_dir, commit, root):
    """Extracts MLC's protocol and template files at `commit` under `root` and imports them."""
    paths = ["python/mlc_llm/protocol/conversation_protocol.py",
             "python/mlc_llm/conversation_template"]
    archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", commit, *paths],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    sys.path.insert(0, str(root / "python"))
    # Stand-ins: the package roots (their real __init__ imports TVM) and serve.data, which
    # as_prompt imports for images only.
    for name in ["mlc_llm", "mlc_llm.protocol", "mlc_llm.serve"]:
        module = types.ModuleType(name)
        module.__path__ = [str(root / "python" / Path(*name.split(".")))]
        sys.modules[name] = module
    data = types.ModuleType("mlc_llm.serve.data")

    class ImageData:  # never made: no conversation here holds an image
        pass

    data.ImageData = ImageData
    sys.modules["mlc_llm.serve.data"] = data
    sys.modules["mlc_llm.serve"].data = data
    import mlc_llm.conversation_template as templates  # noqa: E402  (after the stand-ins)

    return templates.ConvTemplateRegistry


def prompt_of(template, messages):
    """MLC's process_chat_completion_request, up to the prompt text."""
    conv = copy.deepcopy(template)
    for message in messages:
        if message["role"] == "system":
            conv.system_message = message["content"]
            continue
        conv.messages.append((message["role"], message["content"]))
    conv.messages.append(("assistant", None))
    prompt = conv.as_prompt()
    assert len(prompt) == 1 and isinstance(prompt[0], str)
    return prompt[0]


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: make_conversation_fixtures.py MLC_GIT_DIR COMMIT OUT_JSON")
    git_dir, commit, out = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        registry = load_mlc(git_dir, commit, Path(tmp))
        fixture = {"mlc_commit": commit, "conversations": CONVERSATIONS, "templates": []}
        for name in NAMES:
            template = registry.get_conv_template(name)
            assert template is not None, name
            fixture["templates"].append({
                "name": name,
                "json": template.to_json_dict(),
                "prompts": {key: prompt_of(template, messages)
                            for key, messages in CONVERSATIONS.items()},
            })
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

"""Who writes an observation's grounded description: the template (measurements) or a VLM."""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["DescriberConfig", "TemplateDescriberConfig", "VLMDescriberConfig"]


class TemplateDescriberConfig(StrictModel):
    type: Literal["template"] = Field(
        "template", description="descriptions from measurements (category, colour, pattern, place, motion)"
    )


class VLMDescriberConfig(StrictModel):
    type: Literal["vlm"] = Field(description="a GGUF vision-language model through llama-cpp-python")
    model: str = Field(..., description="GGUF language model of the VLM, absolute or in the models folder")
    mmproj: str = Field(..., description="GGUF vision projector (mmproj) matching the model")
    handler: Literal[
        "llava-1.5",
        "llava-1.6",
        "moondream",
        "nanollava",
        "llama-3-vision-alpha",
        "minicpm-v-2.6",
        "qwen2.5-vl",
        "gemma-4",
        "mtmd",
    ] = Field("llava-1.5", description="llama-cpp-python chat handler for the model family")
    n_ctx: int = Field(4096, ge=512, le=1 << 20, description="context length (images take hundreds of tokens)")
    max_tokens: int = Field(160, ge=8, le=1024, description="longest reply (the description as JSON), in tokens")
    n_gpu_layers: int = Field(
        0, ge=-1, le=10_000, description="layers offloaded to the GPU (-1: all; Jetson with CUDA build)"
    )


DescriberConfig = Annotated[Union[TemplateDescriberConfig, VLMDescriberConfig], Field(discriminator="type")]

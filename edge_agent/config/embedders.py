"""Appearance embedders per entity kind (a discriminated union on ``type``)."""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = [
    "DESCRIBED_WEIGHTS",
    "AutoEmbedder",
    "ColorTextureEmbedderConfig",
    "EmbedderConfig",
    "EmbeddersConfig",
    "ONNXEmbedderConfig",
    "OSNetEmbedderConfig",
    "TensorRTEmbedderConfig",
]

Deviation = Annotated[float, Field(gt=0, le=1000)]  #: a channel's standard deviation: divided by, never 0
Pixels = Annotated[int, Field(ge=1, le=16384)]


class AutoEmbedder(StrictModel):
    type: Literal["auto"] = Field("auto", description="people: OSNet if its file is there; else colour-texture")


class OSNetEmbedderConfig(StrictModel):
    type: Literal["osnet"] = Field(description="OSNet person re-identification (ONNX)")
    model: str = Field(
        "osnet_x0_25_msmt17.onnx", description="ONNX person re-id model, absolute or in the models folder"
    )
    providers: list[str] = Field(["CPUExecutionProvider"], description="ONNX Runtime execution providers, in order")


class ColorTextureEmbedderConfig(StrictModel):
    type: Literal["color-texture"] = Field(description="colour histograms + texture, no model file")


class ONNXEmbedderConfig(StrictModel):
    type: Literal["onnx"] = Field(description="any CLIP/DINOv2-style image embedding exported to ONNX")
    model: str = Field(description="ONNX file, absolute or in the models folder")
    size: tuple[Pixels, Pixels] | None = Field(None, description="(height, width) when the model's input is dynamic")
    rgb: bool = Field(True, description="the model takes RGB (False: BGR as OpenCV reads)")
    mean: tuple[float, float, float] = Field(
        (0.485, 0.456, 0.406), description="per-channel mean subtracted (0-1 scale)"
    )
    std: tuple[Deviation, Deviation, Deviation] = Field(
        (0.229, 0.224, 0.225), description="per-channel standard deviation divided by"
    )
    providers: list[str] = Field(["CPUExecutionProvider"], description="ONNX Runtime execution providers, in order")


class TensorRTEmbedderConfig(StrictModel):
    type: Literal["tensorrt"] = Field(description="a TensorRT engine of an image embedder")
    engine: str = Field(
        ..., description="TensorRT engine (edge-agent models build-engine), absolute or in the models folder"
    )
    space: str | None = Field(
        None, description="embedding space (default: the ONNX model's, reid:<name before the first dot>)"
    )
    rgb: bool = Field(True, description="the model takes RGB (False: BGR as OpenCV reads)")
    mean: tuple[float, float, float] = Field(
        (0.485, 0.456, 0.406), description="per-channel mean subtracted (0-1 scale)"
    )
    std: tuple[Deviation, Deviation, Deviation] = Field(
        (0.229, 0.224, 0.225), description="per-channel standard deviation divided by"
    )


EmbedderConfig = Annotated[
    Union[AutoEmbedder, OSNetEmbedderConfig, ColorTextureEmbedderConfig, ONNXEmbedderConfig, TensorRTEmbedderConfig],
    Field(discriminator="type"),
]


#: Measured with `edge-agent calibrate identity` (see the README): what the description's words add to appearance.
#: Nothing, with the template describer: its words (a colour name, a pattern) are the crop's own pixels said in a
#: few words, so they repeat what the colour-texture vector says and flip with the light ("a pink patterned cup"
#: one day, "a red plain cup" the next): on kitchen-harder's objects (`calibrate identity --world kitchen-harder
#: --seed 0 --weights 0 0.35`, at most 1% false merges) pairwise recall 0.960 alone, 0.567 at best with w 0.35.
#: A describer whose words say more than the pixels (a VLM) is calibrated with `calibrate identity --weights`.
KindName = Literal["person", "animal", "object"]
DESCRIBED_WEIGHTS: dict[KindName, float] = {}


class EmbeddersConfig(StrictModel):
    person: EmbedderConfig = Field(default_factory=AutoEmbedder, description="auto: OSNet if its file is there")
    animal: EmbedderConfig = Field(
        default_factory=lambda: ColorTextureEmbedderConfig(type="color-texture"), description="embedder of animals"
    )
    object: EmbedderConfig = Field(
        default_factory=lambda: ColorTextureEmbedderConfig(type="color-texture"), description="embedder of objects"
    )
    described: dict[KindName, Annotated[float, Field(ge=0, lt=1)]] = Field(
        default_factory=lambda: dict(DESCRIBED_WEIGHTS),
        description="per kind, the weight w of the description's words (category, colour, pattern, by the text "
        "model) in the observation embedding: similarity = (1 - w) x appearance + w x description (GEB's "
        "multimodal embedding); 0 or absent: appearance alone",
    )

"""The detector backends (a discriminated union on ``type``), as Frigate's detectors."""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, model_validator

from edge_agent.config.base import StrictModel, union_types

__all__ = [
    "COMMAND_LINE_DETECTORS",
    "AutoDetector",
    "DetectorConfig",
    "GroundTruthDetectorConfig",
    "OpenCVDetectorConfig",
    "OpenVocabDetectorConfig",
    "TensorRTDetectorConfig",
    "YOLOXDetectorConfig",
]


class AutoDetector(StrictModel):
    type: Literal["auto"] = Field("auto", description="YOLOX if its file is in the models folder, else OpenCV")
    model: str = Field("yolox_nano.onnx", description="YOLOX model tried first, in the models folder")


class YOLOXDetectorConfig(StrictModel):
    type: Literal["yolox"] = Field(description="YOLOX (ONNX Runtime, CPU / CUDA / TensorRT providers)")
    model: str = Field("yolox_nano.onnx", description="ONNX file, absolute or in the models folder")
    providers: list[str] = Field(["CPUExecutionProvider"], description="ONNX Runtime execution providers, in order")
    score_threshold: float = Field(
        0.1, ge=0, le=1, description="lowest detection score kept (ByteTrack uses low scores)"
    )
    nms_iou: float = Field(0.45, gt=0, le=1, description="IoU above which NMS suppresses a box")
    threads: int = Field(
        0,
        ge=0,
        le=256,
        description="ONNX Runtime's threads for one frame (0: one per core); a node running a process per stream "
        "runs best with 1",
    )


class TensorRTDetectorConfig(StrictModel):
    type: Literal["tensorrt"] = Field(description="a YOLOX TensorRT engine (tensorrt + pycuda)")
    engine: str = Field(..., description="TensorRT engine file, absolute or in the models folder")
    score_threshold: float = Field(
        0.1, ge=0, le=1, description="lowest detection score kept (ByteTrack uses low scores)"
    )
    nms_iou: float = Field(0.45, gt=0, le=1, description="IoU above which NMS suppresses a box")


class OpenVocabDetectorConfig(StrictModel):
    type: Literal["open-vocab"] = Field(description="an open-vocabulary detector (YOLO-World or OWL-style ONNX)")
    style: Literal["yolo-world", "owl"] = Field(
        ...,
        description="yolo-world: words fixed at export, one image input, boxes xyxy + scores per class; owl: "
        "the words' text embeddings as an input (pixel_values, text_embeds -> logits, pred_boxes)",
    )
    model: str = Field(..., description="ONNX file, absolute or in the models folder")
    classes: list[str] = Field(
        [],
        description="the words to look for, in order; yolo-world: the export's classes, exactly (required)",
    )
    vocabulary: list[str] = Field([], description="owl: more words, after the classes and the names of enrolled things")
    image_text: str | None = Field(
        None,
        description="owl: a CLIP-style folder (image.onnx, text.onnx, tokenizer.json) whose text tower embeds the "
        "words, in the models folder or absolute; default: [places] image_text",
    )
    providers: list[str] = Field(["CPUExecutionProvider"], description="ONNX Runtime execution providers, in order")
    score_threshold: float = Field(0.1, ge=0, le=1, description="lowest detection score kept")
    nms_iou: float = Field(0.45, gt=0, le=1, description="IoU above which NMS suppresses a box of the same word")
    threads: int = Field(0, ge=0, le=256, description="ONNX Runtime's threads for one frame (0: one per core)")

    @model_validator(mode="after")
    def _words_fit_the_style(self) -> OpenVocabDetectorConfig:
        if self.style == "yolo-world" and not self.classes:
            raise ValueError("style 'yolo-world' needs `classes`: the export's class names, in its order")
        if self.style == "yolo-world" and self.vocabulary:
            raise ValueError(
                "style 'yolo-world' fixes its words at export: put them in `classes` (and export the model with "
                "them), not in `vocabulary`"
            )
        return self


class OpenCVDetectorConfig(StrictModel):
    type: Literal["opencv"] = Field(description="HOG people + Haar cascades (no model file)")
    people: bool = Field(True, description="run the HOG people detector")
    cascades: dict[str, str] = Field(
        {"haarcascade_frontalcatface.xml": "cat"}, description="Haar cascade file -> category"
    )


class GroundTruthDetectorConfig(StrictModel):
    type: Literal["gt"] = Field(description="replay a MOT sequence's ground-truth boxes")
    miss_rate: float = Field(0.0, ge=0, le=1, description="fraction of true boxes dropped (a detector's misses)")
    jitter_px: float = Field(0.0, ge=0, description="standard deviation of the noise added to box corners (pixels)")
    false_positive_rate: float = Field(0.0, ge=0, le=1, description="spurious boxes added, per frame and true box")
    min_visibility: float = Field(
        0.0, ge=0, le=1, description="leave out boxes less visible than this (MOT's 9th column)"
    )
    seed: int = Field(0, ge=0, description="seed of the noise (the same seed gives the same boxes)")


DetectorConfig = Annotated[
    Union[
        AutoDetector,
        YOLOXDetectorConfig,
        TensorRTDetectorConfig,
        OpenVocabDetectorConfig,
        OpenCVDetectorConfig,
        GroundTruthDetectorConfig,
    ],
    Field(discriminator="type"),
]

#: What ``--detector`` offers: every type but ``open-vocab``, which needs its model and words from the configuration.
COMMAND_LINE_DETECTORS: tuple[str, ...] = tuple(t for t in union_types(DetectorConfig) if t != "open-vocab")

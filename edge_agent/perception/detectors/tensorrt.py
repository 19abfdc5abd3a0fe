"""YOLOX as a serialised TensorRT engine (built by ``edge-agent models build-engine``), run with tensorrt and
pycuda, both imported only when an engine loads; the engine runner is shared with the TensorRT embedder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from edge_agent.capture.frames import Frame
from edge_agent.config import TensorRTDetectorConfig
from edge_agent.perception.detections import COCO_CLASSES, Detections, ModelError
from edge_agent.perception.detectors.yolox import letterbox, yolox_decode, yolox_postprocess
from edge_agent.perception.registry import DETECTORS, BuildContext

__all__ = ["TensorRTYOLOXDetector"]


class TensorRTYOLOXDetector:
    """YOLOX as a serialised TensorRT engine (built by ``edge-agent models build-engine``), run with
    tensorrt and pycuda. Both are imported only here; without them this backend says what is missing."""

    def __init__(
        self,
        engine_path: str | Path,
        *,
        score_threshold: float = 0.1,
        nms_iou: float = 0.45,
        class_names: tuple[str, ...] = COCO_CLASSES,
        runtime: Any = None,
    ) -> None:
        path = Path(engine_path)
        if not path.is_file():
            raise ModelError(f"TensorRT engine not found: {path}")
        self._runtime = runtime or _TensorRTRuntime(path)
        shape = tuple(self._runtime.input_shape)
        if len(shape) != 4 or shape[1] != 3:
            raise ModelError(f"{path.name}: expected an engine input of shape (1, 3, H, W), got {shape}")
        self.input_size = (int(shape[2]), int(shape[3]))
        self.score_threshold = score_threshold
        self.nms_iou = nms_iou
        self.class_names = class_names
        self.name = f"yolox-tensorrt ({path.name})"

    def detect(self, frame: Frame) -> Detections:
        blob, ratio = letterbox(frame.image, self.input_size)
        raw = self._runtime.infer(blob)
        decoded = yolox_decode(raw.reshape(1, -1, 5 + len(self.class_names)), self.input_size)
        width, height = frame.size
        return yolox_postprocess(decoded, ratio, self.score_threshold, self.nms_iou, self.class_names).clipped(
            width, height
        )


class _TensorRTRuntime:
    """An engine with one input and one output (float32), executed synchronously with pycuda buffers;
    ``input_shape`` / ``output_shape`` are the shapes it runs at. Shared by the TensorRT detector and
    embedder; tests pass a fake with the same three members."""

    def __init__(self, path: Path) -> None:
        try:
            import pycuda.autoinit  # noqa: F401 - creates the CUDA context
            import pycuda.driver as cuda
            import tensorrt as trt
        except ImportError as exc:
            raise ModelError(
                f"the TensorRT backend needs tensorrt and pycuda ({exc.name} is not installed); "
                'use the ONNX Runtime backends instead (type = "yolox" / "osnet")'
            ) from exc
        self._cuda = cuda
        logger = trt.Logger(trt.Logger.WARNING)
        with open(path, "rb") as f, trt.Runtime(logger) as runtime:
            self._engine = runtime.deserialize_cuda_engine(f.read())
        if self._engine is None:
            raise ModelError(f"{path.name} is not a TensorRT engine for this GPU and TensorRT version")
        self._context = self._engine.create_execution_context()
        names = [self._engine.get_tensor_name(i) for i in range(self._engine.num_io_tensors)]
        inputs = [n for n in names if self._engine.get_tensor_mode(n) == trt.TensorIOMode.INPUT]
        outputs = [n for n in names if self._engine.get_tensor_mode(n) == trt.TensorIOMode.OUTPUT]
        if len(inputs) != 1 or len(outputs) != 1:
            raise ModelError(f"{path.name}: expected one input and one output tensor, got {inputs} and {outputs}")
        self._input, self._output = inputs[0], outputs[0]
        self.input_shape = tuple(self._engine.get_tensor_shape(self._input))
        if any(
            d < 0 for d in self.input_shape
        ):  # built from an ONNX with a dynamic dimension: run at the profile's shape
            self.input_shape = tuple(self._engine.get_tensor_profile_shape(self._input, 0)[1])
            self._context.set_input_shape(self._input, self.input_shape)
        self.output_shape = tuple(self._context.get_tensor_shape(self._output))
        self._out_host = cuda.pagelocked_empty(self.output_shape, np.float32)
        self._in_dev = cuda.mem_alloc(int(np.prod(self.input_shape)) * 4)
        self._out_dev = cuda.mem_alloc(self._out_host.nbytes)
        self._context.set_tensor_address(self._input, int(self._in_dev))
        self._context.set_tensor_address(self._output, int(self._out_dev))
        self._stream = cuda.Stream()

    def infer(self, blob: np.ndarray) -> np.ndarray:
        self._cuda.memcpy_htod_async(self._in_dev, np.ascontiguousarray(blob, np.float32), self._stream)
        self._context.execute_async_v3(self._stream.handle)
        self._cuda.memcpy_dtoh_async(self._out_host, self._out_dev, self._stream)
        self._stream.synchronize()
        return np.array(self._out_host)


@DETECTORS.register("tensorrt")
def build(config: TensorRTDetectorConfig, context: BuildContext) -> TensorRTYOLOXDetector:
    return TensorRTYOLOXDetector(
        context.model_file(config.engine), score_threshold=config.score_threshold, nms_iou=config.nms_iou
    )

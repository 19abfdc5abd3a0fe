"""Places of a camera without zones (issue 18): what describes a thing's surroundings, and how alike two
descriptions must be to be one place."""

from __future__ import annotations

from pydantic import Field

from edge_agent.config.base import StrictModel

__all__ = ["SURROUNDINGS", "PlacesConfig"]

#: the space of the model-free descriptor (edge_agent.perception.places.surroundings)
SURROUNDINGS = "surroundings"


class PlacesConfig(StrictModel):
    image_text: str | None = Field(
        None,
        description="a CLIP-style model folder (image.onnx, text.onnx, tokenizer.json; in the models folder or "
        "absolute): its image tower describes a thing's surroundings instead of the model-free descriptor",
    )
    similarity: float = Field(
        0.96, ge=0, le=1, description="the model-free descriptor: cosine to a place's mean that joins the place"
    )
    image_text_similarity: float = Field(
        0.9,
        ge=0,
        le=1,
        description="the same for the image-text descriptor; not measured here (no such weights install offline): "
        "set it for your model",
    )

    def threshold(self, space: str) -> float:
        """The similarity that joins a place described in ``space``."""
        return self.similarity if space == SURROUNDINGS else self.image_text_similarity

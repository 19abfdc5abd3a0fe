"""Perception: detection, within-clip tracking into observations, appearance embeddings and grounded
descriptions, and the pipeline that writes them into memory."""

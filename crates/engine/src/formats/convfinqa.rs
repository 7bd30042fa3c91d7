//! ConvFinQA dataset reader: {train|dev: [...]} and {metadata, examples: [...]} files.

//! FinQA program language: parse, execute against a table, operations, equivalence (owner: program helper).

//! Dataset validation: execute every turn_program and compare with executed_answers.

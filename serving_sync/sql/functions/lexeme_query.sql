-- The lexeme as a tsquery operand: quoted, with quotes and backslashes escaped.
CREATE OR REPLACE FUNCTION serving.lexeme_query(lexeme text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN ('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')::tsquery;

-- The postings a text query matches, as bitmap algebra over its operands: the tsquery's
-- text form is read into reverse Polish notation (! binds tighter than &, & than |, as
-- in tsquery) and evaluated on a stack. NULL: not answerable here (a phrase, a weight,
-- an operand with too many postings to read).
CREATE OR REPLACE FUNCTION serving.text_bits(tsq tsquery, n integer, cap integer) RETURNS varbit
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    token text[];
    output text[] := '{}';
    ops text[] := '{}';
    item text;
    stack varbit[] := '{}';
    operand varbit;
    has_text varbit;
    top integer;
BEGIN
    FOR token IN
        SELECT regexp_matches(tsq::text,
            '(''(?:[^''\\]|''''|\\.)*'')(:[*A-D]+)?|(<[0-9]*-?>)|([!&|()])', 'g')
    LOOP
        IF token[1] IS NOT NULL THEN
            IF token[2] IS NOT NULL AND token[2] <> ':*' THEN
                RETURN NULL;  -- a weight: bitmaps do not know where a word stands
            END IF;
            output := output || ((CASE WHEN token[2] = ':*' THEN 'p' ELSE 'w' END)
                || regexp_replace(substr(token[1], 2, length(token[1]) - 2), '[''\\](.)', '\1', 'g'));
        ELSIF token[3] IS NOT NULL THEN
            RETURN NULL;  -- a phrase: needs the positions
        ELSIF token[4] = '(' THEN
            ops := ops || '('::text;
        ELSIF token[4] = ')' THEN
            WHILE ops[cardinality(ops)] <> '(' LOOP
                output := output || ops[cardinality(ops)];
                ops := ops[1:cardinality(ops) - 1];
            END LOOP;
            ops := ops[1:cardinality(ops) - 1];
        ELSIF token[4] = '!' THEN
            ops := ops || '!'::text;  -- unary, binds to what follows
        ELSE  -- & or |: first apply what binds at least as tightly
            WHILE cardinality(ops) > 0 AND ops[cardinality(ops)] <> '('
                  AND (ops[cardinality(ops)] IN ('!', '&') OR token[4] = '|') LOOP
                output := output || ops[cardinality(ops)];
                ops := ops[1:cardinality(ops) - 1];
            END LOOP;
            ops := ops || token[4];
        END IF;
    END LOOP;
    WHILE cardinality(ops) > 0 LOOP
        output := output || ops[cardinality(ops)];
        ops := ops[1:cardinality(ops) - 1];
    END LOOP;
    SELECT b.bits | b.bits INTO has_text FROM serving.live_bits(n) b WHERE b.facet = 'text';
    has_text := coalesce(has_text, serving.bits_of_slots('{}', n));
    FOREACH item IN ARRAY output LOOP
        top := cardinality(stack);
        IF item = '!' THEN
            stack[top] := ~stack[top] & has_text;
        ELSIF item = '&' THEN
            stack := stack[1:top - 2] || (stack[top - 1] & stack[top]);
        ELSIF item = '|' THEN
            stack := stack[1:top - 2] || (stack[top - 1] | stack[top]);
        ELSE
            operand := serving.operand_bits(substr(item, 2), left(item, 1) = 'p', n, cap);
            IF operand IS NULL THEN
                RETURN NULL;
            END IF;
            stack := stack || operand;
        END IF;
    END LOOP;
    IF cardinality(stack) <> 1 THEN
        RETURN NULL;  -- not a form this reads: leave it to the query
    END IF;
    RETURN stack[1];
END
$$;

#!/usr/bin/env escript
%% Makes the expected outputs the tests compare with, using OTP 25 itself:
%%
%%   escript expected.escript exprs exprs.txt > exprs.expected
%%       one line per input line: the expression list as erl_parse builds it,
%%       or "error L:C Message".
%%   escript expected.escript forms mod.erl > mod.erl.forms
%%       one line per form, as epp:parse_file/2 reads the file.
%%   escript expected.escript erlc bad.erl > bad.erl.erlc
%%       the first diagnostic erlc prints: "L:C Message".
%%
%% The trees are normalised where trace's AST records less than erl_parse or
%% folds more: `-1` is the literal -1, `$a` an integer, the stacktrace
%% variable and record field names sit at the positions our AST keeps, and
%% attributes we do not model are reduced to their name.
main(Args) ->
    io:setopts(standard_io, [{encoding, unicode}]),
    run(Args).

run(["exprs", File]) ->
    {ok, Bin} = file:read_file(File),
    Lines = string:split(unicode:characters_to_list(Bin), "\n", all),
    [expr_line(L) || L <- Lines, L =/= ""];
run(["forms", File]) ->
    {ok, Forms} = epp:parse_file(File, [{location, {1, 1}},
                                        {includes, [filename:dirname(File)]}]),
    [io:format("~tw~n", [form(F)]) || F <- Forms, keep(F)];
run(["erlc", File]) ->
    Out = os:cmd("erlc -o /tmp " ++ File ++ " 2>&1"),
    [First | _] = [L || L <- string:split(Out, "\n", all),
                        string:prefix(L, File ++ ":") =/= nomatch],
    Rest = string:prefix(First, File ++ ":"),
    io:format("~ts~n", [Rest]).

expr_line(Line) ->
    case erl_scan:string(Line, {1, 1}) of
        {ok, Toks, _} ->
            case erl_parse:parse_exprs(Toks) of
                {ok, Es} -> io:format("~tw~n", [[norm(E) || E <- Es]]);
                {error, {{L, C}, M, E}} ->
                    io:format("error ~w:~w ~ts~n", [L, C, M:format_error(E)])
            end;
        {error, {{L, C}, M, E}, _} ->
            io:format("error ~w:~w ~ts~n", [L, C, M:format_error(E)])
    end.

keep({attribute, _, file, _}) -> false;
keep({eof, _}) -> false;
keep(_) -> true.

form({attribute, A, record, {Name, Fields}}) ->
    {attribute, A, record, {Name, [norm(untyped(F)) || F <- Fields]}};
form({attribute, A, N, V}) when N =:= module; N =:= export; N =:= import ->
    {attribute, A, N, V};
form({attribute, A, N, _}) -> {attribute, A, N};
form({function, A, N, Ar, Cs}) -> {function, A, N, Ar, [norm(C) || C <- Cs]};
form(Other) -> Other.

untyped({typed_record_field, F, _Type}) -> F;
untyped(F) -> F.

first({op, _, _, L, _}) -> first(L);
first({remote, _, M, _}) -> first(M);
first({record_field, _, E, _, _}) -> first(E);
first({record, _, E, _, _}) -> first(E);
first({map, _, E, _}) -> first(E);
first(T) -> element(2, T).

norm({op, A, '-', X}) ->
    case norm(X) of
        {integer, _, N} -> {integer, A, -N};
        {float, _, F} -> {float, A, -F};
        NX -> {op, A, '-', NX}
    end;
norm({op, A, '+', X}) ->
    case norm(X) of
        {integer, _, N} -> {integer, A, N};
        {float, _, F} -> {float, A, F};
        NX -> {op, A, '+', NX}
    end;
norm({char, A, C}) -> {integer, A, C};
norm({record_field, A, E, R, {atom, _, F}}) -> {record_field, A, norm(E), R, {atom, A, F}};
norm({record_index, A, R, {atom, _, F}}) -> {record_index, A, R, {atom, A, F}};
norm({'try', A, B, Of, Catch, After}) ->
    {'try', A, norm(B), norm(Of), [catch_clause(C) || C <- Catch], norm(After)};
norm(T) when is_tuple(T) -> list_to_tuple(norm(tuple_to_list(T)));
norm(L) when is_list(L) -> [norm(X) || X <- L];
norm(X) -> X.

catch_clause({clause, A, [{tuple, TA, [Class, Pat, {var, _, S}]}], G, B}) ->
    P = first(norm(Pat)),
    Class1 = case Class of
                 {atom, _, throw} when element(2, Class) =:= element(2, Pat) -> {atom, P, throw};
                 _ -> norm(Class)
             end,
    {clause, A, [{tuple, TA, [Class1, norm(Pat), {var, P, S}]}], norm(G), norm(B)}.

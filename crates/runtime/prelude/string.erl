%% string: the classic (pre-Unicode) API, on flat lists of characters. OTP's
%% own versions are Erlang too, so these fail the same way on bad input
%% (function_clause, or badarg from a BIF). The Unicode API (length, trim,
%% split, ...) is native: see src/bif/strings/.
-module(string).
-export([len/1, concat/2, chr/2, rchr/2, str/2, rstr/2, span/2, cspan/2,
         substr/2, substr/3, sub_string/2, sub_string/3, tokens/2,
         chars/2, chars/3, copies/2, words/1, words/2, sub_word/2, sub_word/3,
         strip/1, strip/2, strip/3, left/2, left/3, right/2, right/3,
         centre/2, centre/3, to_upper/1, to_lower/1, join/2]).

len(S) -> length(S).

concat(S1, S2) -> S1 ++ S2.

chr(S, C) when is_integer(C) -> chr(S, C, 1).

chr([C | _], C, I) -> I;
chr([_ | T], C, I) -> chr(T, C, I + 1);
chr([], _, _) -> 0.

rchr(S, C) when is_integer(C) -> rchr(S, C, 1, 0).

rchr([C | T], C, I, _) -> rchr(T, C, I + 1, I);
rchr([_ | T], C, I, L) -> rchr(T, C, I + 1, L);
rchr([], _, _, L) -> L.

str(S, Sub) when is_list(Sub) -> str(S, Sub, 1).

str([C | S], [C | Sub], I) ->
    case lists:prefix(Sub, S) of
        true -> I;
        false -> str(S, [C | Sub], I + 1)
    end;
str([_ | S], Sub, I) -> str(S, Sub, I + 1);
str([], _, _) -> 0.

rstr(S, Sub) when is_list(Sub) -> rstr(S, Sub, 1, 0).

rstr([C | S], [C | Sub], I, L) ->
    case lists:prefix(Sub, S) of
        true -> rstr(S, [C | Sub], I + 1, I);
        false -> rstr(S, [C | Sub], I + 1, L)
    end;
rstr([_ | S], Sub, I, L) -> rstr(S, Sub, I + 1, L);
rstr([], _, _, L) -> L.

span(S, Cs) when is_list(Cs) -> span(S, Cs, 0).

span([C | S], Cs, N) ->
    case lists:member(C, Cs) of
        true -> span(S, Cs, N + 1);
        false -> N
    end;
span([], _, N) -> N.

cspan(S, Cs) when is_list(Cs) -> cspan(S, Cs, 0).

cspan([C | S], Cs, N) ->
    case lists:member(C, Cs) of
        true -> N;
        false -> cspan(S, Cs, N + 1)
    end;
cspan([], _, N) -> N.

substr(S, Start) when is_integer(Start), Start >= 1 -> lists:nthtail(Start - 1, S).

substr(S, Start, Len) when is_integer(Start), Start >= 1, is_integer(Len), Len >= 0 ->
    lists:sublist(lists:nthtail(Start - 1, S), Len).

sub_string(S, Start) -> substr(S, Start).

sub_string(S, Start, Stop) -> substr(S, Start, Stop - Start + 1).

tokens(S, Seps) when is_list(Seps) -> tokens(S, Seps, [], []).

tokens([C | S], Seps, Tok, Toks) ->
    case lists:member(C, Seps) of
        true -> tokens(S, Seps, [], add_token(Tok, Toks));
        false -> tokens(S, Seps, [C | Tok], Toks)
    end;
tokens([], _, Tok, Toks) -> lists:reverse(add_token(Tok, Toks)).

add_token([], Toks) -> Toks;
add_token(Tok, Toks) -> [lists:reverse(Tok) | Toks].

chars(C, N) -> chars(C, N, []).

chars(C, N, Tail) when is_integer(N), N >= 0 -> lists:duplicate(N, C) ++ Tail.

copies(S, N) when is_integer(N), N >= 0 -> lists:append(lists:duplicate(N, S)).

words(S) -> words(S, $\s).

words(S, C) when is_integer(C) -> count_words(strip(S, both, C), C, 0).

count_words([], _, N) -> N + 1;
count_words([C | T], C, N) -> count_words(strip(T, left, C), C, N + 1);
count_words([_ | T], C, N) -> count_words(T, C, N).

sub_word(S, N) -> sub_word(S, N, $\s).

sub_word(S, N, C) when is_integer(N), N >= 1, is_integer(C) ->
    nth_word(strip(S, left, C), N, C).

nth_word([], _, _) -> [];
nth_word(S, 1, C) -> lists:takewhile(fun(X) -> X =/= C end, S);
nth_word([C | T], N, C) -> nth_word(strip(T, left, C), N - 1, C);
nth_word([_ | T], N, C) -> nth_word(T, N, C).

strip(S) -> strip(S, both, $\s).

strip(S, Dir) -> strip(S, Dir, $\s).

strip(S, left, C) when is_integer(C) -> strip_left(S, C);
strip(S, right, C) when is_integer(C) -> strip_right(S, C);
strip(S, both, C) when is_integer(C) -> strip_right(strip_left(S, C), C).

strip_left([C | T], C) -> strip_left(T, C);
strip_left(S, _) when is_list(S) -> S.

strip_right(S, C) -> lists:reverse(strip_left(lists:reverse(S), C)).

left(S, N) -> left(S, N, $\s).

left(S, N, C) when is_integer(N), N >= 0, is_integer(C) ->
    L = length(S),
    if
        L >= N -> lists:sublist(S, N);
        true -> S ++ lists:duplicate(N - L, C)
    end.

right(S, N) -> right(S, N, $\s).

right(S, N, C) when is_integer(N), N >= 0, is_integer(C) ->
    L = length(S),
    if
        L >= N -> lists:nthtail(L - N, S);
        true -> lists:duplicate(N - L, C) ++ S
    end.

centre(S, N) -> centre(S, N, $\s).

centre(_, 0, C) when is_integer(C) -> [];
centre(S, N, C) when is_integer(N), N > 0, is_integer(C) ->
    L = length(S),
    if
        L > N -> lists:sublist(lists:nthtail((L - N) div 2, S), N);
        L < N ->
            Pad = N - L,
            lists:duplicate(Pad div 2, C) ++ S ++ lists:duplicate(Pad - Pad div 2, C);
        true -> S
    end.

to_upper(S) when is_list(S) -> [upper_char(C) || C <- S];
to_upper(C) when is_integer(C) -> upper_char(C).

to_lower(S) when is_list(S) -> [lower_char(C) || C <- S];
to_lower(C) when is_integer(C) -> lower_char(C).

%% Latin-1 letters only, as OTP's classic functions.
upper_char(C) when is_integer(C), C >= $a, C =< $z -> C - 32;
upper_char(C) when is_integer(C), C >= 16#E0, C =< 16#F6 -> C - 32;
upper_char(C) when is_integer(C), C >= 16#F8, C =< 16#FE -> C - 32;
upper_char(C) -> C.

lower_char(C) when is_integer(C), C >= $A, C =< $Z -> C + 32;
lower_char(C) when is_integer(C), C >= 16#C0, C =< 16#D6 -> C + 32;
lower_char(C) when is_integer(C), C >= 16#D8, C =< 16#DE -> C + 32;
lower_char(C) -> C.

join([H | T], Sep) -> H ++ lists:append([Sep ++ X || X <- T]);
join([], _) -> [].

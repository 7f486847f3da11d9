%% base64: RFC 4648's base 64 alphabet ("A".."Z", "a".."z", "0".."9", "+",
%% "/", "=" to pad), with OTP 25's functions.
%%
%% decode/1 skips whitespace and takes "=" only as the padding that
%% completes the last group of four. mime_decode/1 skips every character
%% outside the alphabet, drops an "=" that more data follows, and takes any
%% number of trailing "=" once they complete the last group (one is enough
%% after two digits). What does not
%% decode raises an error (badarg for a character that is no base 64 digit,
%% function_clause for a wrong length or padding), not always the one BEAM
%% raises for the same input.
-module(base64).
-export([encode/1, encode_to_string/1, decode/1, decode_to_string/1,
         mime_decode/1, mime_decode_to_string/1]).

encode(Data) when is_binary(Data) -> encode_binary(Data);
encode(Data) when is_list(Data) -> encode_binary(list_to_binary(Data)).

encode_to_string(Data) -> binary_to_list(encode(Data)).

encode_binary(Bin) ->
    Whole = byte_size(Bin) div 3 * 3,
    <<Groups:Whole/binary, Tail/binary>> = Bin,
    Body = << <<(digit(A)), (digit(B)), (digit(C)), (digit(D))>>
              || <<A:6, B:6, C:6, D:6>> <= Groups >>,
    case Tail of
        <<>> -> Body;
        <<A:6, B:2>> -> <<Body/binary, (digit(A)), (digit(B bsl 4)), "==">>;
        <<A:6, B:6, C:4>> -> <<Body/binary, (digit(A)), (digit(B)), (digit(C bsl 2)), "=">>
    end.

digit(N) when N < 26 -> $A + N;
digit(N) when N < 52 -> $a + N - 26;
digit(N) when N < 62 -> $0 + N - 52;
digit(62) -> $+;
digit(63) -> $/.

decode(Base64) ->
    {Digits, Pads} = split_padding([C || <<C>> <= bytes(Base64), not is_space(C)]),
    case lists:member($=, Digits) of
        true -> erlang:error(function_clause, [Base64]);
        false -> ok
    end,
    case (length(Digits) + Pads) rem 4 =:= 0 andalso Pads =< 2 andalso fills(Digits, Pads, 2) of
        true -> decode_digits(Digits, Base64);
        false -> erlang:error(function_clause, [Base64])
    end.

decode_to_string(Base64) -> binary_to_list(decode(Base64)).

mime_decode(Base64) ->
    Kept = [C || <<C>> <= bytes(Base64), C =:= $= orelse value(C) =/= none],
    {Digits0, Pads} = split_padding(Kept),
    Digits = [C || C <- Digits0, C =/= $=],
    case fills(Digits, Pads, 1) of
        true -> decode_digits(Digits, Base64);
        false -> erlang:error(function_clause, [Base64])
    end.

mime_decode_to_string(Base64) -> binary_to_list(mime_decode(Base64)).

bytes(B) when is_binary(B) -> B;
bytes(L) when is_list(L) -> list_to_binary(L).

is_space(C) -> C =:= $\s orelse C =:= $\t orelse C =:= $\r orelse C =:= $\n.

%% The characters before the trailing "=", and how many "=" trail.
split_padding(Chars) ->
    {RevPads, RevDigits} = lists:splitwith(fun(C) -> C =:= $= end, lists:reverse(Chars)),
    {lists:reverse(RevDigits), length(RevPads)}.

%% Whether Pads "=" complete the last group of the digits: after two
%% digits, decode/1 needs two and mime_decode/1 one (`Two`).
fills(Digits, Pads, Two) ->
    case length(Digits) rem 4 of
        0 -> true;
        2 -> Pads >= Two;
        3 -> Pads >= 1;
        1 -> false
    end.

decode_digits(Digits, Arg) ->
    Bits = << <<(checked_value(C, Arg)):6>> || C <- Digits >>,
    Whole = bit_size(Bits) div 8 * 8,
    <<Bytes:Whole/bitstring, _/bitstring>> = Bits,
    Bytes.

checked_value(C, Arg) ->
    case value(C) of
        none -> erlang:error(badarg, [Arg]);
        V -> V
    end.

value(C) when C >= $A, C =< $Z -> C - $A;
value(C) when C >= $a, C =< $z -> C - $a + 26;
value(C) when C >= $0, C =< $9 -> C - $0 + 52;
value($+) -> 62;
value($/) -> 63;
value(_) -> none.

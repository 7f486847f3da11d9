%% calendar: dates and times in the proleptic Gregorian calendar, as OTP 25's
%% documentation describes them. Gregorian days count from {0, 1, 1} (day 0)
%% and gregorian seconds from its midnight. The engine's local time is UTC
%% (erlang:localtime/0 is erlang:universaltime/0), so conversions between
%% local and universal time only check their argument.
%%
%% Bad arguments raise what OTP raises in the cases fixtures/seq/calendar_lib
%% checks: function_clause for a wrong type, a negative year or day, a month
%% outside 1..12; if_clause for a day past the month's end; badarg from the
%% conversions of local time and for a time RFC 3339 cannot write (past
%% year 9999).
-module(calendar).
-export([date_to_gregorian_days/1, date_to_gregorian_days/3,
         datetime_to_gregorian_seconds/1, day_of_the_week/1,
         day_of_the_week/3, gregorian_days_to_date/1,
         gregorian_seconds_to_datetime/1, is_leap_year/1, iso_week_number/0,
         iso_week_number/1, last_day_of_the_month/2, local_time/0,
         local_time_to_universal_time/1, local_time_to_universal_time/2,
         local_time_to_universal_time_dst/1, now_to_datetime/1,
         now_to_local_time/1, now_to_universal_time/1,
         rfc3339_to_system_time/1, rfc3339_to_system_time/2,
         seconds_to_daystime/1, seconds_to_time/1,
         system_time_to_local_time/2, system_time_to_rfc3339/1,
         system_time_to_rfc3339/2, system_time_to_universal_time/2,
         time_difference/2, time_to_seconds/1, universal_time/0,
         universal_time_to_local_time/1, valid_date/1, valid_date/3]).

-define(SECONDS_PER_DAY, 86400).
%% Gregorian seconds at the Unix epoch, 1970-01-01T00:00:00.
-define(UNIX_EPOCH, 62167219200).
%% Gregorian seconds at 9999-12-31T23:59:59, the last time RFC 3339 writes.
-define(MAX_RFC3339, 315569519999).

%% Days

date_to_gregorian_days({Year, Month, Day}) ->
    date_to_gregorian_days(Year, Month, Day).

date_to_gregorian_days(Year, Month, Day) when is_integer(Day), Day > 0 ->
    Last = last_day_of_the_month(Year, Month),
    if
        Day =< Last -> days_before_year(Year) + days_before_month(Year, Month) + Day - 1
    end.

gregorian_days_to_date(Days) when is_integer(Days), Days >= 0 ->
    Year = year_of(Days),
    InYear = Days - days_before_year(Year),
    {Month, Day} = month_and_day(Year, InYear, 1),
    {Year, Month, Day}.

%% Days before January 1 of Year: year 0 is a leap year.
days_before_year(0) -> 0;
days_before_year(Year) ->
    Y = Year - 1,
    Year * 365 + Y div 4 - Y div 100 + Y div 400 + 1.

%% The year day Days falls in: an estimate from the 400-year cycle, moved.
year_of(Days) ->
    fit_year(Days * 400 div 146097, Days).

fit_year(Y, Days) ->
    case days_before_year(Y + 1) =< Days of
        true -> fit_year(Y + 1, Days);
        false ->
            case days_before_year(Y) > Days of
                true -> fit_year(Y - 1, Days);
                false -> Y
            end
    end.

month_and_day(Year, InYear, Month) ->
    Len = last_day_of_the_month(Year, Month),
    case InYear < Len of
        true -> {Month, InYear + 1};
        false -> month_and_day(Year, InYear - Len, Month + 1)
    end.

days_before_month(Year, Month) ->
    lists:sum([last_day_of_the_month(Year, M) || M <- lists:seq(1, Month - 1)]).

day_of_the_week({Year, Month, Day}) ->
    day_of_the_week(Year, Month, Day).

%% 1 is Monday; day 0, {0, 1, 1}, was a Saturday.
day_of_the_week(Year, Month, Day) ->
    (date_to_gregorian_days(Year, Month, Day) + 5) rem 7 + 1.

is_leap_year(Year) when is_integer(Year), Year >= 0 ->
    (Year rem 4 =:= 0 andalso Year rem 100 > 0) orelse Year rem 400 =:= 0.

last_day_of_the_month(Year, Month) when is_integer(Year), Year >= 0 ->
    month_length(Year, Month).

month_length(Year, 2) ->
    case is_leap_year(Year) of
        true -> 29;
        false -> 28
    end;
month_length(_, M) when M =:= 4; M =:= 6; M =:= 9; M =:= 11 -> 30;
month_length(_, M) when is_integer(M), M >= 1, M =< 12 -> 31.

valid_date({Year, Month, Day}) ->
    valid_date(Year, Month, Day).

valid_date(Year, Month, Day) when is_integer(Year), is_integer(Month), is_integer(Day) ->
    Year >= 0 andalso Month >= 1 andalso Month =< 12 andalso Day >= 1
        andalso Day =< month_length(Year, Month).

%% The ISO 8601 week: the one holding the week's Thursday, counted in that
%% Thursday's year.
iso_week_number() ->
    {Date, _} = local_time(),
    iso_week_number(Date).

iso_week_number({Year, Month, Day}) ->
    Days = date_to_gregorian_days(Year, Month, Day),
    Thursday = Days + 4 - day_of_the_week(Year, Month, Day),
    {WeekYear, _, _} = gregorian_days_to_date(Thursday),
    {WeekYear, (Thursday - date_to_gregorian_days(WeekYear, 1, 1)) div 7 + 1}.

%% Seconds

datetime_to_gregorian_seconds({Date, Time}) ->
    date_to_gregorian_days(Date) * ?SECONDS_PER_DAY + time_to_seconds(Time).

gregorian_seconds_to_datetime(Secs) when is_integer(Secs), Secs >= 0 ->
    {gregorian_days_to_date(Secs div ?SECONDS_PER_DAY),
     seconds_to_time(Secs rem ?SECONDS_PER_DAY)}.

time_to_seconds({H, M, S}) when is_integer(H), is_integer(M), is_integer(S) ->
    H * 3600 + M * 60 + S.

seconds_to_time(Secs) when is_integer(Secs), Secs >= 0, Secs < ?SECONDS_PER_DAY ->
    {Secs div 3600, Secs rem 3600 div 60, Secs rem 60}.

seconds_to_daystime(Secs) when is_integer(Secs) ->
    Days = Secs div ?SECONDS_PER_DAY,
    case Secs rem ?SECONDS_PER_DAY of
        Rest when Rest < 0 -> {Days - 1, seconds_to_time(Rest + ?SECONDS_PER_DAY)};
        Rest -> {Days, seconds_to_time(Rest)}
    end.

time_difference({_, _} = From, {_, _} = To) ->
    seconds_to_daystime(datetime_to_gregorian_seconds(To) - datetime_to_gregorian_seconds(From)).

%% Clocks (nondeterministic: erlang's clocks, which a recording logs)

local_time() -> erlang:localtime().

universal_time() -> erlang:universaltime().

local_time_to_universal_time(DateTime) -> checked(DateTime).

local_time_to_universal_time(DateTime, _IsDst) -> checked(DateTime).

local_time_to_universal_time_dst(DateTime) -> [checked(DateTime)].

universal_time_to_local_time(DateTime) -> checked(DateTime).

%% A datetime the conversions of local time accept, or badarg.
checked({{Y, Mo, D}, {H, Mi, S}} = DateTime)
  when is_integer(Y), is_integer(Mo), is_integer(D), is_integer(H), is_integer(Mi),
       is_integer(S), H >= 0, H < 24, Mi >= 0, Mi < 60, S >= 0, S < 60 ->
    case valid_date(Y, Mo, D) of
        true -> DateTime;
        false -> erlang:error(badarg, [DateTime])
    end;
checked(DateTime) ->
    erlang:error(badarg, [DateTime]).

now_to_datetime(Now) -> now_to_universal_time(Now).

now_to_universal_time({Mega, Secs, _Micro}) ->
    gregorian_seconds_to_datetime(Mega * 1000000 + Secs + ?UNIX_EPOCH).

now_to_local_time(Now) -> universal_time_to_local_time(now_to_universal_time(Now)).

system_time_to_universal_time(Time, Unit) ->
    Secs = erlang:convert_time_unit(Time, Unit, second),
    gregorian_seconds_to_datetime(Secs + ?UNIX_EPOCH).

system_time_to_local_time(Time, Unit) ->
    universal_time_to_local_time(system_time_to_universal_time(Time, Unit)).

%% RFC 3339

system_time_to_rfc3339(Time) -> system_time_to_rfc3339(Time, []).

system_time_to_rfc3339(Time, Options) when is_integer(Time) ->
    Unit0 = proplists:get_value(unit, Options, second),
    Designator = proplists:get_value(time_designator, Options, $T),
    Offset0 = proplists:get_value(offset, Options, ""),
    %% A native time is written to the millisecond.
    {Unit, T} = case Unit0 of
                    native -> {millisecond, erlang:convert_time_unit(Time, native, millisecond)};
                    _ -> {Unit0, Time}
                end,
    PerSecond = per_second(Unit),
    OffsetSecs = offset_seconds(Offset0, PerSecond),
    %% The offset moves the time before it is cut into seconds and a
    %% fraction (the fraction of a time before 1970 counts up, as OTP's).
    Shifted = T + OffsetSecs * PerSecond,
    Gregorian = Shifted div PerSecond + ?UNIX_EPOCH,
    if
        Gregorian > ?MAX_RFC3339 -> erlang:error({badarg, [Time, Options]});
        Gregorian =:= 0 -> erlang:error(badarg);
        true -> ok
    end,
    {{Y, Mo, D}, {H, Mi, S}} = gregorian_seconds_to_datetime(Gregorian),
    lists:flatten([pad(4, Y), $-, pad(2, Mo), $-, pad(2, D), Designator,
                   pad(2, H), $:, pad(2, Mi), $:, pad(2, S),
                   fraction(Unit, abs(Shifted rem PerSecond)), offset_text(Offset0, OffsetSecs)]);
system_time_to_rfc3339(Time, Options) ->
    erlang:error(badarg, [Time, Options]).

per_second(second) -> 1;
per_second(millisecond) -> 1000;
per_second(microsecond) -> 1000000;
per_second(nanosecond) -> 1000000000;
per_second(native) -> 1000000000.

fraction(second, _) -> "";
fraction(millisecond, F) -> [$. | pad(3, F)];
fraction(microsecond, F) -> [$. | pad(6, F)];
fraction(nanosecond, F) -> [$. | pad(9, F)].

%% The offset in seconds: "" is local time (UTC here), "Z" none, "+HH:MM"
%% or "-HH:MM" as written, an integer in the time's unit.
offset_seconds("", _) -> 0;
offset_seconds("Z", _) -> 0;
offset_seconds("z", _) -> 0;
offset_seconds([Sign, H1, H2, $:, M1, M2], _) when Sign =:= $+; Sign =:= $- ->
    Secs = list_to_integer([H1, H2]) * 3600 + list_to_integer([M1, M2]) * 60,
    case Sign of
        $+ -> Secs;
        $- -> -Secs
    end;
offset_seconds(Offset, PerSecond) when is_integer(Offset) ->
    Offset div PerSecond.

offset_text("", Secs) -> offset_text(Secs);
offset_text(Offset, _) when is_list(Offset) -> Offset;
offset_text(_, Secs) -> offset_text(Secs).

offset_text(Secs) ->
    Sign = if Secs < 0 -> $-; true -> $+ end,
    A = abs(Secs),
    [Sign, pad(2, A div 3600), $:, pad(2, A rem 3600 div 60)].

%% N in at least Width digits, zeros before.
pad(Width, N) ->
    Digits = integer_to_list(N),
    lists:duplicate(Width - length(Digits), $0) ++ Digits.

rfc3339_to_system_time(Text) -> rfc3339_to_system_time(Text, []).

%% "YYYY-MM-DD", one character between date and time, "HH:MM:SS", an
%% optional fraction, then "Z" or an offset "+HH:MM".
rfc3339_to_system_time(Text, Options) ->
    Unit = proplists:get_value(unit, Options, second),
    [Y1, Y2, Y3, Y4, $-, Mo1, Mo2, $-, D1, D2, _, H1, H2, $:, Mi1, Mi2, $:, S1, S2 | Rest] = Text,
    Date = {list_to_integer([Y1, Y2, Y3, Y4]), list_to_integer([Mo1, Mo2]),
            list_to_integer([D1, D2])},
    Time = {list_to_integer([H1, H2]), list_to_integer([Mi1, Mi2]), list_to_integer([S1, S2])},
    {FracDigits, OffsetText} = lists:splitwith(fun(C) -> C >= $0 andalso C =< $9 end,
                                               fraction_digits(Rest)),
    [_ | _] = OffsetText,
    OffsetSecs = parsed_offset(OffsetText),
    Secs = datetime_to_gregorian_seconds({Date, Time}) - ?UNIX_EPOCH - OffsetSecs,
    PerSecond = per_second(Unit),
    Secs * PerSecond + fraction_value(FracDigits, PerSecond, Secs).

fraction_digits([$. | Digits]) -> Digits;
fraction_digits(Rest) -> Rest.

parsed_offset([Z]) when Z =:= $Z; Z =:= $z -> 0;
parsed_offset([_, _, _, $:, _, _] = Offset) -> offset_seconds(Offset, 1).

%% The fraction's digits in the unit, rounded, with the sign of the
%% seconds (a time before 1970 goes further back); none in seconds.
fraction_value(_, 1, _) -> 0;
fraction_value([], _, _) -> 0;
fraction_value(Digits, PerSecond, Secs) ->
    F = round(PerSecond * list_to_float("0." ++ Digits)),
    if
        Secs < 0 -> -F;
        true -> F
    end.
